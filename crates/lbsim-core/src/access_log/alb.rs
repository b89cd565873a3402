//! AWS Application Load Balancer access log lines, fields in AWS's documented order.
