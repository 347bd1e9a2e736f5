#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""pcq_idl.py - the Impacket NDR definitions of PerflibV2 ([MS-PCQ] section 6) for the test server and client of
the captures: a shim over python/examples/perflib_ndr.py (MIT), the one copy, which the Impacket example
python/examples/perflib_typeperf.py uses too."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "examples"))
from perflib_ndr import *  # noqa: E402,F401,F403
from perflib_ndr import (ERROR_ACCESS_DENIED, ERROR_INVALID_PARAMETER, ERROR_NOT_ENOUGH_MEMORY,  # noqa: E402,F401
                         ERROR_SUCCESS, ERROR_WMI_GUID_NOT_FOUND, MSRPC_UUID_PERFLIBV2, OPNUM_NAMES, OPNUMS,
                         PERFLIBV2_UUID, array_bytes, guid_items, handle_bytes, make_handle, max_count,
                         set_cv_array, wstr)
