"""Matrix product kernels: the tiled GEMM, thin (streamed) products, heuristic defaults, and the
matmul tuning family."""
