#!/bin/bash
# The end-to-end suite (tests/run.sh) as a TAP source for prove.
exec bash "$(dirname "$0")/run.sh"
