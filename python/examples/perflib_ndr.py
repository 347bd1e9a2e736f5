# SPDX-License-Identifier: MIT
"""perflib_ndr.py - Impacket NDR definitions of the PerflibV2 interface ([MS-PCQ] section 6, the full IDL).

    [uuid(da5a86c5-12c2-4943-ab30-7f74a813d853), pointer_default(unique), version(1.0)]
    interface PerflibV2

Every pointer parameter of the IDL is a top-level pointer, hence [ref]: it is marshalled without a referent id,
the pointee in place.  So:
  - [in, string] wchar_t *szMachine       -> conformant varying string (max count, offset 0, actual count,
                                             UTF-16LE code units including the terminating NUL)
  - [in] GUID *CounterSetGuid              -> the 16 GUID bytes
  - [out] DWORD *pdwOutSize, *pdwRtnSize   -> one uint32 each
  - [out, size_is(dwInSize), length_is(*pdwOutSize)] lpData
                                           -> conformant varying array: max count = dwInSize, offset 0,
                                              actual count = *pdwOutSize, then the elements (bytes; 16-byte
                                              GUIDs for opnum 0, where both counts are in GUIDs)
  - [in, out, size_is(dwInSize)] lpData    -> (opnum 7) conformant array: max count = dwInSize, then the bytes,
                                              in the request and again in the reply
  - RPC_HQUERY / PRPC_HQUERY               -> 20-byte context handle (uint32 attributes + 16-byte UUID)
Out parameters come in declaration order, then the error_status_t return value (uint32).

Request classes are named after the method; Impacket finds the reply class by appending 'Response'.

The one copy of these classes: the example perflib_typeperf.py imports it, and so do the test server and
client of wireshark/captures/ (through pcq_idl.py, a shim). MIT, like the rest of python/.
"""
from impacket import system_errors
from impacket.dcerpc.v5.dtypes import DWORD, GUID, ULONG, WSTR
from impacket.dcerpc.v5.ndr import (NDRCALL, NDRSTRUCT, NDRUniConformantArray,
                                    NDRUniConformantVaryingArray)
from impacket.dcerpc.v5.rpcrt import DCERPCException
from impacket.uuid import uuidtup_to_bin

MSRPC_UUID_PERFLIBV2 = uuidtup_to_bin(("da5a86c5-12c2-4943-ab30-7f74a813d853", "1.0"))
PERFLIBV2_UUID = "da5a86c5-12c2-4943-ab30-7f74a813d853"

OPNUM_NAMES = {
    0: "PerflibV2EnumerateCounterSet",
    1: "PerflibV2QueryCounterSetRegistrationInfo",
    2: "PerflibV2EnumerateCounterSetInstances",
    3: "PerflibV2OpenQueryHandle",
    4: "PerflibV2CloseQueryHandle",
    5: "PerflibV2QueryCounterInfo",
    6: "PerflibV2QueryCounterData",
    7: "PerflibV2ValidateCounters",
}

# error_status_t values the protocol names ([MS-PCQ] 3.1.4.1.x)
ERROR_SUCCESS = 0
ERROR_ACCESS_DENIED = 5
ERROR_NOT_ENOUGH_MEMORY = 8
ERROR_INVALID_PARAMETER = 0x57
ERROR_WMI_GUID_NOT_FOUND = 0x1068


class DCERPCSessionError(DCERPCException):
    def __init__(self, error_string=None, error_code=None, packet=None):
        DCERPCException.__init__(self, error_string, error_code, packet)

    def __str__(self):
        key = self.error_code
        if key in system_errors.ERROR_MESSAGES:
            return "PerflibV2 SessionError: code: 0x%x - %s - %s" % (
                key, system_errors.ERROR_MESSAGES[key][0], system_errors.ERROR_MESSAGES[key][1])
        return "PerflibV2 SessionError: unknown error code: 0x%x" % key


################################################################################
# Types
################################################################################
error_status_t = ULONG


class RPC_HQUERY(NDRSTRUCT):
    """typedef [context_handle] HANDLE RPC_HQUERY: on the wire a 20-byte context handle."""
    structure = (
        ("context_handle_attributes", ULONG),
        ("context_handle_uuid", "16s=b\"\""),
    )

    def getAlignment(self):
        return 4


PRPC_HQUERY = RPC_HQUERY   # a top-level [ref] pointer to it: the handle itself


class BYTE_CV_ARRAY(NDRUniConformantVaryingArray):
    """[size_is(dwInSize), length_is(*pdwOutSize)] unsigned char *: max count, offset, actual count, bytes."""
    item = "c"


class GUID_CV_ARRAY(NDRUniConformantVaryingArray):
    """[size_is(dwInSize), length_is(*pdwOutSize)] GUID * (opnum 0): counts are in GUIDs."""
    item = GUID


class BYTE_C_ARRAY(NDRUniConformantArray):
    """[in, out, size_is(dwInSize)] unsigned char * (opnum 7): max count, then the bytes."""
    item = "c"


################################################################################
# Opnum 0: PerflibV2EnumerateCounterSet
################################################################################
class PerflibV2EnumerateCounterSet(NDRCALL):
    opnum = 0
    structure = (
        ("szMachine", WSTR),
        ("dwInSize", DWORD),
    )


class PerflibV2EnumerateCounterSetResponse(NDRCALL):
    structure = (
        ("pdwOutSize", DWORD),
        ("pdwRtnSize", DWORD),
        ("lpData", GUID_CV_ARRAY),
        ("ErrorCode", error_status_t),
    )


################################################################################
# Opnum 1: PerflibV2QueryCounterSetRegistrationInfo
################################################################################
class PerflibV2QueryCounterSetRegistrationInfo(NDRCALL):
    opnum = 1
    structure = (
        ("szMachine", WSTR),
        ("CounterSetGuid", GUID),
        ("RequestCode", DWORD),
        ("RequestLCID", DWORD),
        ("dwInSize", DWORD),
    )


class PerflibV2QueryCounterSetRegistrationInfoResponse(NDRCALL):
    structure = (
        ("pdwOutSize", DWORD),
        ("pdwRtnSize", DWORD),
        ("lpData", BYTE_CV_ARRAY),
        ("ErrorCode", error_status_t),
    )


################################################################################
# Opnum 2: PerflibV2EnumerateCounterSetInstances
################################################################################
class PerflibV2EnumerateCounterSetInstances(NDRCALL):
    opnum = 2
    structure = (
        ("szMachine", WSTR),
        ("CounterSetGuid", GUID),
        ("dwInSize", DWORD),
    )


class PerflibV2EnumerateCounterSetInstancesResponse(NDRCALL):
    structure = (
        ("pdwOutSize", DWORD),
        ("pdwRtnSize", DWORD),
        ("lpData", BYTE_CV_ARRAY),
        ("ErrorCode", error_status_t),
    )


################################################################################
# Opnum 3: PerflibV2OpenQueryHandle
################################################################################
class PerflibV2OpenQueryHandle(NDRCALL):
    opnum = 3
    structure = (
        ("szMachine", WSTR),
    )


class PerflibV2OpenQueryHandleResponse(NDRCALL):
    structure = (
        ("phQuery", PRPC_HQUERY),
        ("ErrorCode", error_status_t),
    )


################################################################################
# Opnum 4: PerflibV2CloseQueryHandle
################################################################################
class PerflibV2CloseQueryHandle(NDRCALL):
    opnum = 4
    structure = (
        ("phQuery", PRPC_HQUERY),
    )


class PerflibV2CloseQueryHandleResponse(NDRCALL):
    structure = (
        ("phQuery", PRPC_HQUERY),
        ("ErrorCode", error_status_t),
    )


################################################################################
# Opnum 5: PerflibV2QueryCounterInfo
################################################################################
class PerflibV2QueryCounterInfo(NDRCALL):
    opnum = 5
    structure = (
        ("hQuery", RPC_HQUERY),
        ("dwInSize", DWORD),
    )


class PerflibV2QueryCounterInfoResponse(NDRCALL):
    structure = (
        ("pdwOutSize", DWORD),
        ("pdwRtnSize", DWORD),
        ("lpData", BYTE_CV_ARRAY),
        ("ErrorCode", error_status_t),
    )


################################################################################
# Opnum 6: PerflibV2QueryCounterData
################################################################################
class PerflibV2QueryCounterData(NDRCALL):
    opnum = 6
    structure = (
        ("hQuery", RPC_HQUERY),
        ("dwInSize", DWORD),
    )


class PerflibV2QueryCounterDataResponse(NDRCALL):
    structure = (
        ("pdwOutSize", DWORD),
        ("pdwRtnSize", DWORD),
        ("lpData", BYTE_CV_ARRAY),
        ("ErrorCode", error_status_t),
    )


################################################################################
# Opnum 7: PerflibV2ValidateCounters
################################################################################
class PerflibV2ValidateCounters(NDRCALL):
    opnum = 7
    structure = (
        ("hQuery", RPC_HQUERY),
        ("dwInSize", DWORD),
        ("lpData", BYTE_C_ARRAY),
        ("dwAdd", DWORD),
    )


class PerflibV2ValidateCountersResponse(NDRCALL):
    structure = (
        ("lpData", BYTE_C_ARRAY),
        ("ErrorCode", error_status_t),
    )


OPNUMS = {
    0: (PerflibV2EnumerateCounterSet, PerflibV2EnumerateCounterSetResponse),
    1: (PerflibV2QueryCounterSetRegistrationInfo, PerflibV2QueryCounterSetRegistrationInfoResponse),
    2: (PerflibV2EnumerateCounterSetInstances, PerflibV2EnumerateCounterSetInstancesResponse),
    3: (PerflibV2OpenQueryHandle, PerflibV2OpenQueryHandleResponse),
    4: (PerflibV2CloseQueryHandle, PerflibV2CloseQueryHandleResponse),
    5: (PerflibV2QueryCounterInfo, PerflibV2QueryCounterInfoResponse),
    6: (PerflibV2QueryCounterData, PerflibV2QueryCounterDataResponse),
    7: (PerflibV2ValidateCounters, PerflibV2ValidateCountersResponse),
}


################################################################################
# Helpers
################################################################################
def make_handle(handle_bytes):
    """An RPC_HQUERY from its 20 wire bytes."""
    if len(handle_bytes) != 20:
        raise ValueError("a context handle is 20 bytes")
    h = RPC_HQUERY()
    h["context_handle_attributes"] = int.from_bytes(handle_bytes[:4], "little")
    h["context_handle_uuid"] = bytes(handle_bytes[4:])
    return h


def handle_bytes(h):
    return h.getData()


def set_cv_array(call, field, data, max_count):
    """Fill the conformant varying array call[field]: the elements (bytes, or GUID items), then its max count
    (the dwInSize the caller asked for; Impacket would otherwise send the element count)."""
    call[field] = data
    call.fields[field].fields["MaximumCount"] = max_count


def max_count(call, field):
    """The max count of a decoded conformant (varying) array parameter."""
    return call.fields[field].fields["MaximumCount"]


def guid_items(data):
    """16-byte GUID items of a GUID_CV_ARRAY from raw bytes (a multiple of 16)."""
    if len(data) % 16:
        raise ValueError("GUID array data must be a multiple of 16 bytes")
    items = []
    for k in range(0, len(data), 16):
        g = GUID()
        g["Data"] = data[k:k + 16]
        items.append(g)
    return items


def array_bytes(call, field):
    """The raw bytes of the decoded byte or GUID array call[field]."""
    out = b""
    for e in call[field]:
        if isinstance(e, GUID):
            out += e["Data"]
        elif isinstance(e, int):
            out += bytes([e])
        else:
            out += e
    return out


def wstr(s):
    """szMachine value: Impacket's WSTR counts what it is given, so add the terminating NUL here."""
    return s if s.endswith("\x00") else s + "\x00"
