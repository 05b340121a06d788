"""lit's side of ember-lit: the test format that test/lit.cfg.py uses. It lives in a module of
its own because lit pickles the format to hand it to its worker processes, and a class
defined inside lit.cfg.py cannot be pickled."""

import lit.formats
import lit.TestRunner

# ember-lit's rule: a file with a test suffix is a test when it mentions the RUN keyword
# (spelled in two parts here so that ember-lit does not take this file for a test).
RUN_KEYWORD = b"RUN" + b":"


def has_run_line(path):
    try:
        with open(path, "rb") as f:
            return RUN_KEYWORD in f.read()
    except OSError:
        return False


class EmberShTest(lit.formats.ShTest):
    """ShTest through bash, as ember-lit runs commands, that skips files without RUN lines
    and adds `%T` (the directory of `%t`), which newer lit no longer provides."""

    def __init__(self):
        super().__init__()
        # Set after construction: lit 23 refuses `execute_external=True` in the constructor
        # without `force_execute_external`, a keyword lit 22 does not know.
        self.execute_external = True

    def getTestsForPath(self, testSuite, path_in_suite, litConfig, localConfig):
        for test in super().getTestsForPath(testSuite, path_in_suite, litConfig, localConfig):
            if has_run_line(test.getSourcePath()):
                yield test

    def execute(self, test, litConfig):
        tmp_dir, _ = lit.TestRunner.getTempPaths(test)
        return lit.TestRunner.executeShTest(
            test,
            litConfig,
            self.execute_external,
            self.extra_substitutions + [("%T", tmp_dir)],
            self.preamble_commands,
        )
