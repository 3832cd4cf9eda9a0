"""FFT kernels: Stockham radix 4/2 passes and Bluestein (chirp-z) for other lengths."""
