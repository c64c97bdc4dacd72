"""OpenTelemetry as ground truth: receive what an agent exports over OTLP/HTTP and store its usage."""
