#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sparse for the 7.2 headers. Debian's sparse 0.6.4 (the last release) does
# not know __typeof_unqual__, which 7.2 uses and checks for before it lets
# C=1 run, nor __builtin_strlen in a constant expression (MODULE_INFO's
# static_assert). Spell both the way sparse understands and run it; every
# other check is sparse's own.
exec sparse -D__typeof_unqual__=__typeof__ '-D__builtin_strlen(x)=(sizeof(x)-1)' "$@"
