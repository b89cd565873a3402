#!/usr/bin/env python3
"""Join-Idle-Queue, modelled as its paper and docs/model.md describe it.

What it answers: the mean response time and mean wait of JIQ-Random and
JIQ-SQ(2) with N = 50 single-slot servers and C = 5 dispatchers at loads
0.5, 0.8 and 0.9, and the share of arrivals that found their dispatcher's
idle queue empty. `crates/lbsim-core/tests/behaviour/jiq_matches_its_model.rs`
holds lbsim's `jiq` to the first two.

The model is written from Lu et al., "Join-Idle-Queue: A novel load
balancing algorithm for dynamically scalable web services" (Performance
Evaluation 68(11), 2011) and from the rule's description in docs/model.md
(the rule table and "What a rule may know"), not from the simulator's code:

- Poisson arrivals at rate load x N / E[work], REQUESTS of them, each sent
  to one of the C dispatchers at random;
- exponential work of mean 1 (times are in units of the mean work), one
  slot and a first-come first-served queue at each server, all idle at 0;
- a dispatcher sends an arrival to the first server in its idle queue,
  else to a server drawn uniformly at random;
- a server that is idle and in no idle queue joins one: every server at
  time 0, and again whenever a completion leaves it idle; it picks one
  dispatcher at random (JIQ-Random) or the one with the shorter idle queue
  of D drawn with replacement (JIQ-SQ(D)), ties to the first drawn;
- a server leaves "its" idle queue when any dispatcher sends it a job; an
  entry left behind in a queue (the job came from another dispatcher) stays
  there and is used as it is when popped.

At one instant a completion is handled before an arrival (exponential
times make ties have probability zero).

The simulation uses Python's own Mersenne Twister, so its figures are
replication means with a standard error, not lbsim's streams. Run (no
dependencies beyond Python 3):

    python3 tests/oracles/jiq.py > tests/oracles/jiq.out

The .out file: one line per (variant, load, replication) and a summary line
per (variant, load) with the mean and standard error of the replications.
"""

import heapq
import math
import random
from collections import deque

SERVERS = 50
COPIES = 5
LOADS = [0.5, 0.8, 0.9]
VARIANTS = [("jiq-random", 1), ("jiq-sq2", 2)]
REQUESTS = 100_000
REPLICATIONS = 10

ARRIVAL, DONE = 1, 0  # a completion goes first at a tie


def run(load, sampled, seed):
    rng = random.Random(seed)
    rate = load * SERVERS  # mean work 1
    idle_queues = [deque() for _ in range(COPIES)]
    in_queue = [False] * SERVERS
    # Jobs at each server: arrival times, the first one in service.
    waiting = [deque() for _ in range(SERVERS)]
    events = []  # (time, kind, server)

    def join(server):
        best = rng.randrange(COPIES)
        for _ in range(sampled - 1):
            c = rng.randrange(COPIES)
            if len(idle_queues[c]) < len(idle_queues[best]):
                best = c
        idle_queues[best].append(server)
        in_queue[server] = True

    for s in range(SERVERS):
        join(s)

    total_response = total_wait = 0.0
    found_empty = 0
    arrivals = 0
    heapq.heappush(events, (rng.expovariate(rate), ARRIVAL, -1))
    while events:
        t, kind, server = heapq.heappop(events)
        if kind == ARRIVAL:
            arrivals += 1
            copy = rng.randrange(COPIES)
            if idle_queues[copy]:
                server = idle_queues[copy].popleft()
            else:
                found_empty += 1
                server = rng.randrange(SERVERS)
            in_queue[server] = False
            queue = waiting[server]
            queue.append(t)
            if len(queue) == 1:
                heapq.heappush(events, (t + rng.expovariate(1.0), DONE, server))
            if arrivals < REQUESTS:
                heapq.heappush(events, (t + rng.expovariate(rate), ARRIVAL, -1))
        else:
            queue = waiting[server]
            arrived = queue.popleft()
            total_response += t - arrived
            if queue:
                # The next job starts now: it waited since it arrived.
                total_wait += t - queue[0]
                heapq.heappush(events, (t + rng.expovariate(1.0), DONE, server))
            elif not in_queue[server]:
                join(server)
    return total_response / REQUESTS, total_wait / REQUESTS, found_empty / REQUESTS


def mean_se(values):
    n = len(values)
    m = sum(values) / n
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    return m, math.sqrt(var / n)


def main():
    print(
        f"# JIQ, N={SERVERS} single-slot servers, C={COPIES} dispatchers, exponential work of mean 1, "
        f"{REQUESTS} Poisson arrivals from empty, {REPLICATIONS} replications (Python's Mersenne Twister)"
    )
    print("# variant    load  seed  response  wait      found_empty")
    for name, sampled in VARIANTS:
        for load in LOADS:
            rows = []
            for seed in range(REPLICATIONS):
                response, wait, empty = run(load, sampled, seed)
                rows.append((response, wait, empty))
                print(f"row {name:10} {load:.1f}  {seed:4}  {response:.5f}  {wait:.5f}  {empty:.5f}")
            r, w, e = (mean_se([row[i] for row in rows]) for i in range(3))
            print(
                f"mean {name:10} {load:.1f}  response {r[0]:.5f} {r[1]:.5f}  wait {w[0]:.5f} {w[1]:.5f}"
                f"  found_empty {e[0]:.5f} {e[1]:.5f}"
            )


if __name__ == "__main__":
    main()
