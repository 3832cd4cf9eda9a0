"""Linear algebra kernels: Cholesky, LU, Householder QR, Jacobi eigh/SVD, eig (Hessenberg, QR)."""
