#!/bin/bash
# The unit tests built with ASan/UBSan (leaks are failures).
UNIT_BIN=build/unit-asan exec bash "$(dirname "$0")/unit.t"
