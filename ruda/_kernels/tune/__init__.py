"""The autotuner: engine, search order, declared families, checks, on-disk store, device timers."""
