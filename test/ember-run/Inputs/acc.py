from typing import List

class Acc:
    def __init__(self, start: int):
        self.total = start
        self.items: List[int] = []

    def add(self, v: int) -> int:
        if v < 0:
            raise ValueError("negative item")
        self.total += v
        self.items.append(v)
        return self.total

def square(n: int) -> int:
    return n * n

def run_good(n: int) -> int:
    a = Acc(1)
    for i in range(n):
        a.add(square(i - 1))
    return a.total + len(a.items)

def run_bad(n: int) -> int:
    a = Acc(0)
    for i in range(n):
        a.add(i - 2)
    return a.total
