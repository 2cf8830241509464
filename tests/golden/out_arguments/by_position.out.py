import shims
import jittor as jt

x = jt.randn(3, 4)
a = jt.randn(2, 3)
b = jt.randn(3, 5)
n = jt.empty(3)
m = jt.empty(2, 5)
shims.out_(n, shims.norm(x, 2, 1, False))  # out as torch's 5th positional
shims.out_(m, shims.tensordot(a, b, 1))  # out as torch's 4th positional
k = shims.out_(n, shims.norm(x, 2, 1, False, jt.float32))  # dtype after it
shims.out_(m, shims.tensordot(a, b, 1))  # the keyword form, for comparison
