# RUN: ember-opt %s --split-input-file --verify-diagnostics
# Errors of classes: inheritance, Enum values, static and class methods, self, attributes
# (missing, read-only, set outside __init__, wrong type, on a non-class), __init__ and __new__,
# recursive methods; and defaults that are no constants.
# Worded as PyTorch words them (checked with tools/gen/torch_graphs.py); differences are noted.
import torch

class Base(object):
    def __init__(self):
        self.x = 1

# PyTorch says this for torch.jit.script(A); a class it compiles because a function uses it
# keeps only its own methods, silently.
# expected-error @+1 {{TorchScript classes does not support inheritance yet. Please directly inherit from 'object'.}}
class A(Base):
    def __init__(self):
        self.y = 1

def f(x: int) -> int:
    return A().y

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

    @staticmethod
    def make(y: int) -> int:
        return y

    # PyTorch fails an internal assert here (python_sugared_value.cpp).
    # expected-error @+2 {{static and class methods are not supported yet}}
    @classmethod
    def other(cls, y: int) -> int:
        return y

def f(x: int) -> int:
    return A().x

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

    # expected-error @+1 {{methods must have a self argument}}
    def get():
        return 1

def f(x: int) -> int:
    return A().x

# -----
import torch

def g(x: int, y: int = len([1, 2])) -> int:
    return x

def f(x: int) -> int:
    # PyTorch takes the value Python computed for the default (2); Ember has no Python.
    # expected-error @-5 {{default arguments must be constants in TorchScript}}
    return g(x)

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

    def get(self) -> int:
        # expected-error @+1 {{'__torch__.A' object has no attribute or method 'y'. Did you forget to initialize an attribute in __init__()?}}
        return self.y

def f(x: int) -> int:
    return A().get()

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

    @property
    def double(self) -> int:
        return 2 * self.x

    def set(self):
        # expected-error @+1 {{Tried to set read-only attribute: double}}
        self.double = 3

def f(x: int) -> int:
    a = A()
    a.set()
    return a.x

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

    def set(self):
        # expected-error @+1 {{Tried to set nonexistent attribute: y. Did you forget to initialize it in __init__()?}}
        self.y = 3

def f(x: int) -> int:
    a = A()
    a.set()
    return a.x

# -----
import torch

class A(object):
    def __init__(self, c: bool):
        if c:
            # expected-error @+1 {{First assignment cannot be in a control-flow block. Initialize the field at the top level first}}
            self.x = 1

def f(x: int) -> int:
    return A(True).x

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

    def set(self):
        # expected-error @+1 {{Wrong type for attribute assignment. Expected int but got str}}
        self.x = "a"

def f(x: int) -> int:
    a = A()
    a.set()
    return a.x

# -----
import torch

def f(x: int) -> int:
    y = 1
    # expected-error @+1 {{Tried to set an attribute: z on a non-class: int}}
    y.z = x
    return y

# -----
import torch

class A(object):
    x: int

def f(x: int) -> int:
    # expected-error @+1 {{Class A does not have an __init__ function defined}}
    a = A()
    return x

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

def f(x: int) -> int:
    # PyTorch says "Python builtin <built-in method __new__ ...> is currently not supported".
    # expected-error @+1 {{Only one argument to __new__ allowed}}
    a = A.__new__(A, 1)
    return x

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

def f(x: int) -> int:
    # PyTorch says "Python builtin <built-in method __new__ ...> is currently not supported".
    # expected-error @+1 {{Expected class value as argument to __new__, got int instead}}
    a = A.__new__(x)
    return x

# -----
import torch

class A(object):
    def __init__(self):
        self.x = 1

    def get(self, n: int) -> int:
        if n > 0:
            # expected-error @+1 {{method 'get' is called recursively. Recursive calls are not supported}}
            return self.get(n - 1)
        return 0

def f(x: int) -> int:
    return A().get(x)

# -----
import torch
from enum import Enum

class Color(Enum):
    RED = 1

def f(x: int) -> int:
    # expected-error @+1 {{'Enum<__torch__.Color>' has no attribute 'BLUE'}}
    c = Color.BLUE
    return x

# -----
import torch
from enum import Enum

class Color(Enum):
    RED = 1
    # expected-error @+1 {{Cannot create Enum with value type 'Any', only int, float and string are supported}}
    GREEN = [2]

def f(c: Color) -> int:
    return 0

# -----
import torch
from enum import Enum

class Color(Enum):
    RED = 1
    # PyTorch takes the value Python computed (3); Ember has no Python.
    # expected-error @+1 {{Enum values must be int, float or str literals}}
    GREEN = 1 + 2

def f(c: Color) -> int:
    return 0
