from typing import Any, List, Tuple

import torch


class Recorder:
    def __init__(self):
        self.log: List[str] = []

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, a: Any, b: Any, c: Any):
        self.log.append("exit")


def f(x: int) -> List[str]:
    r = Recorder()
    with r:
        r.log.append(str(x))
    return r.log
