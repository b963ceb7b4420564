"""The planner: instruction + code → per-file sketches from a frontier model (Messages API)."""
