"""The device math library: IR ports of libm (f64 transcendentals, pow, trig), exact
rounding helpers, complex math and the floating-point status words."""
