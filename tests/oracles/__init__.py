"""Not tests: independent oracles and the seed's plain code that the tests (and some benchmarks) compare against."""
