"""Generated data that both the tests and the benchmarks build on (never the server)."""
