def add_one(x: int) -> int:
    return x + 1
