#!/usr/bin/env python3
"""The `degraded` preset's least connections, modelled in Ciw.

What it answers: the share of requests least connections sends the slow
server C in the `degraded` preset (crates/lbsim-core/src/presets.rs), which
`crates/lbsim-core/tests/behaviour/preset_lessons.rs` pins at 0.125 +- 0.01.

The model, written from the preset and from the rule's doc comment
(crates/lbsim-core/src/balancer/least_connections.rs), not from the
simulator's code:

- Poisson arrivals at 60 per second (0.06 per ms), 20,000 of them;
- three servers A, B, C of 8 slots each, one FIFO queue per server;
  constant work of 100 ms at speed 1, 1 and 0.2, so service takes 100, 100
  and 500 ms;
- one balancer: each arrival goes to the server with the fewest
  unfinished requests (running + queued); ties rotate: a server whose
  count changes is queued behind the servers already at its new count,
  so among equals the one that has held its count longest goes first.

Ciw (https://ciw.readthedocs.io) runs the queues. The balancer is a Ciw
node with no service time and unlimited servers that routes every
arrival with the router below; the rotation needs the moment each
server's count last changed, which a Ciw node subclass stamps in `accept`
and `release`, the two places Ciw changes `number_of_individuals`.

Ciw draws its own random numbers, so this gives a replication mean with a
standard error, not lbsim's exact stream. Run (Ciw pinned in
requirements.txt beside this file):

    python3 -m venv /tmp/ciw && /tmp/ciw/bin/pip install -r tests/oracles/requirements.txt
    /tmp/ciw/bin/python tests/oracles/degraded_least_connections.py > tests/oracles/degraded_least_connections.out
"""

import math
import sys

import ciw

RATE_PER_MS = 60 / 1000
REQUESTS = 20_000
SLOTS = 8
SERVICE_MS = [100 / 1.0, 100 / 1.0, 100 / 0.2]
REPLICATIONS = 20

# Node 1 is the balancer; nodes 2, 3, 4 are A, B, C.
BALANCER, SERVERS = 1, [2, 3, 4]


class StampedNode(ciw.Node):
    """A node that remembers when its count of individuals last changed."""

    clock = 0

    def stamp(self):
        StampedNode.clock += 1
        self.changed = StampedNode.clock

    def accept(self, next_individual, completed=False):
        super().accept(next_individual, completed)
        self.stamp()

    def release(self, next_individual, next_node, reroute=False):
        # `release` hands the individual on (to the exit node here) before
        # it returns; this node's count has dropped by then.
        super().release(next_individual, next_node, reroute)
        self.stamp()


class LeastConnections(ciw.routing.NodeRouting):
    """Fewest unfinished; among equals the one at its count the longest."""

    def __init__(self, destinations):
        self.destinations = destinations
        self.sent = {d: 0 for d in destinations}

    def next_node(self, ind):
        nodes = self.simulation.nodes

        def key(d):
            # Every server starts at count 0 in pool order.
            return (nodes[d].number_of_individuals, getattr(nodes[d], "changed", d - 100))

        best = min(self.destinations, key=key)
        self.sent[best] += 1
        return nodes[best]


def replication(seed):
    StampedNode.clock = 0
    router = LeastConnections(SERVERS)
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(rate=RATE_PER_MS), None, None, None],
        service_distributions=[ciw.dists.Deterministic(value=0.0)]
        + [ciw.dists.Deterministic(value=ms) for ms in SERVICE_MS],
        number_of_servers=[float("inf"), SLOTS, SLOTS, SLOTS],
        routing=ciw.routing.NetworkRouting(
            routers=[router, ciw.routing.Leave(), ciw.routing.Leave(), ciw.routing.Leave()]
        ),
    )
    ciw.seed(seed)
    sim = ciw.Simulation(network, node_class=StampedNode)
    # Run until the balancer has placed the preset's 20,000 requests.
    sim.simulate_until_max_customers(REQUESTS, method="Arrive")
    peak_queue_c = max(
        (rec.queue_size_at_arrival - SLOTS + 1 for rec in sim.get_all_records() if rec.node == 4),
        default=0,
    )
    total = sum(router.sent.values())
    return router.sent[4] / total, max(peak_queue_c, 0), total


def main():
    shares = []
    print(f"ciw {ciw.__version__}; degraded preset, least connections, ties rotating")
    print("seed  placed  share_of_C  peak_queue_C")
    for seed in range(REPLICATIONS):
        share, peak, total = replication(seed)
        shares.append(share)
        print(f"{seed:4d}  {total:6d}  {share:.4f}      {peak}")
    mean = sum(shares) / len(shares)
    sd = math.sqrt(sum((s - mean) ** 2 for s in shares) / (len(shares) - 1))
    print(f"mean share of C over {len(shares)} replications: {mean:.4f}")
    print(f"standard error: {sd / math.sqrt(len(shares)):.4f}")
    print(f"fluid model 2/22: {2 / 22:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
