"""Scalar builtins on int, float and bool: Python semantics for division and modulo."""


def cases(c):
    def floordiv(a: int, b: int) -> int:
        return a // b

    def mod(a: int, b: int) -> int:
        return a % b

    def fdiv(a: float, b: float) -> float:
        return a // b

    def fmod(a: float, b: float) -> float:
        return a % b

    def truediv(a: int, b: int) -> float:
        return a / b

    for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3)]:
        tag = f"{a}_{b}".replace("-", "m")
        c.add(f"floordiv_int_{tag}", floordiv, a, b)
        c.add(f"mod_int_{tag}", mod, a, b)
        c.add(f"truediv_int_{tag}", truediv, a, b)
    c.add("floordiv_int_by_zero", floordiv, 1, 0)
    # `1 % 0` in TorchScript kills PyTorch itself with SIGFPE, so it has no oracle here;
    # Ember raises ZeroDivisionError (unit test in runtime/src/ops/scalar.rs).
    for a, b in [(7.5, 2.0), (-7.5, 2.0), (1.0, 0.1), (-4.0, 2.0), (4.0, -2.0)]:
        tag = f"{a}_{b}".replace("-", "m").replace(".", "p")
        c.add(f"floordiv_float_{tag}", fdiv, a, b)
        c.add(f"mod_float_{tag}", fmod, a, b)

    def compare(a: int, b: float) -> bool:
        return a < b and b != 2.0

    c.add("compare_mixed", compare, 1, 1.5)

    def loop_sum(n: int) -> int:
        s = 0
        for i in range(n):
            if i % 3 == 0:
                continue
            s += i * i
        return s

    c.add("loop_sum", loop_sum, 20)

    def collatz(n: int) -> int:
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    c.add("collatz_27", collatz, 27)
