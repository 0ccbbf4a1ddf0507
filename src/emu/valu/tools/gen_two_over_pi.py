#!/usr/bin/env python3
# Prints the first 1216 fraction bits of 2/pi as 38 big-endian 32-bit words,
# the table behind v_trig_preop_f64 (two_over_pi.inc). pi comes from Machin's
# formula in integer arithmetic, computed twice at different precisions.
def arctan_inv(x, N):
    # atan(1/x) * 2^N using integer series
    one = 1 << N
    total = term = one // x
    x2 = x * x
    n = 1
    sign = -1
    while term:
        term //= x2
        total += sign * (term // (2 * n + 1))
        sign = -sign
        n += 1
    return total

def pi_scaled(N):
    G = 40
    return (16 * arctan_inv(5, N + G) - 4 * arctan_inv(239, N + G)) >> G

def two_over_pi_bits(nbits, N):
    P = pi_scaled(N)
    return (1 << (nbits + 1 + N)) // P   # floor(2/pi * 2^nbits)

a = two_over_pi_bits(1216, 1500)
b = two_over_pi_bits(1216, 1700)
assert a == b, "precision"
assert a.bit_length() == 1216
words = [(a >> (1216 - 32 * (i + 1))) & 0xffffffff for i in range(38)]
print(", ".join("0x%08x" % w for w in words))
# sanity: top 53 bits vs double 2/pi
import math
top = a >> (1216 - 53)
print(top / 2**53, 2 / math.pi)
