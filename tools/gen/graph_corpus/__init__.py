"""Cases for tools/gen/gen_graph_corpus.py, one module per category.

Each module registers its cases with the helpers of `registry`; the generator imports the
modules in a fixed order so TorchScript's class-name mangling is the same on every run.
"""
