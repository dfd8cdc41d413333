"""The zip container of PyTorch checkpoints: a small writer and a defensive reader.

PyTorch keeps this in C++ (``PyTorchFileWriter``/``PyTorchFileReader`` over miniz). The format
is plain zip with every record STORED (uncompressed) and each payload padded, through an extra
field named ``FB``, to start at a multiple of 64 bytes, so a storage can be memory-mapped in
place. The reader trusts nothing in the file: every offset and size is checked against the
file's length before anything is read or allocated, and any defect raises ``ZipFormatError``
(``cinder.load`` turns it into a RuntimeError naming the file).
"""

import struct
import threading
import zlib

import numpy as np

__all__ = ["ZipFormatError", "ZipWriter", "ZipReader", "ALIGNMENT"]

ALIGNMENT = 64
_LOCAL = struct.Struct("<IHHHHHIIIHH")            # local file header, 30 bytes
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")    # central directory entry, 46 bytes
_EOCD = struct.Struct("<IHHHHIIH")                # end of central directory, 22 bytes
_EOCD64 = struct.Struct("<IQHHIIQQQQ")            # zip64 end of central directory, 56 bytes
_EOCD64_LOCATOR = struct.Struct("<IIQI")          # 20 bytes
_SIG_LOCAL, _SIG_CENTRAL = 0x04034B50, 0x02014B50
_SIG_EOCD, _SIG_EOCD64, _SIG_LOCATOR = 0x06054B50, 0x06064B50, 0x07064B50
_U32_MAX, _U16_MAX = 0xFFFFFFFF, 0xFFFF
_UTF8_FLAG = 0x0800
_DESCRIPTOR_FLAG = 0x0008          # sizes and CRC follow the data (PyTorch's writer sets it)
_SIG_DESCRIPTOR = 0x08074B50
_THREADED_CRC_BYTES = 1 << 20
_ZIP64_VERSION = 45


class ZipFormatError(Exception):
    """The bytes are not a readable zip archive; the message says what is wrong."""


def crc32_started(payload):
    """Start the CRC-32 of ``payload`` and return a function that gives it.

    zlib releases the GIL on large buffers, so a big record is summed on a helper thread while
    the caller writes or reads the next bytes; the checksum then costs almost no extra time.
    """
    if len(payload) < _THREADED_CRC_BYTES:
        value = zlib.crc32(payload)
        return lambda: value
    box = []
    thread = threading.Thread(target=lambda: box.append(zlib.crc32(payload)), daemon=True)
    thread.start()

    def result():
        thread.join()
        return box[0]
    return result


# ----------------------------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------------------------
def _descriptor(crc, size, big):
    """The data descriptor that follows a record's bytes: CRC-32 and the two sizes."""
    sizes = struct.pack("<QQ" if big else "<II", size, size)
    return struct.pack("<II", _SIG_DESCRIPTOR, crc) + sizes


class ZipWriter:
    """Writes STORED records to a binary file object, each payload 64-byte aligned."""

    def __init__(self, fileobj):
        self._f = fileobj
        self._pos = 0              # bytes written so far (offsets are relative to the start)
        self._entries = []         # (name bytes, crc, size, header offset)
        self._names = set()

    def _write(self, data):
        self._f.write(data)
        self._pos += len(data) if isinstance(data, bytes) else memoryview(data).nbytes

    def write_record(self, name, data):
        """Add record ``name`` holding ``data`` (bytes, memoryview or a uint8 NumPy array).

        As in PyTorch's files, the CRC and sizes follow the data in a data descriptor, so the
        checksum can be computed while the payload is being written.
        """
        if name in self._names:
            raise RuntimeError(f"record {name} already written")
        self._names.add(name)
        payload = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        size = len(payload)
        crc = crc32_started(payload)
        encoded = name.encode("utf-8")
        header_offset = self._pos
        big = size >= _U32_MAX
        zip64 = struct.pack("<HHQQ", 1, 16, 0, 0) if big else b""
        # The FB extra field pads the header so that the payload starts on an aligned offset.
        used = header_offset + _LOCAL.size + len(encoded) + len(zip64) + 4
        pad = (-used) % ALIGNMENT
        extra = zip64 + b"FB" + struct.pack("<H", pad) + b"Z" * pad
        shown = _U32_MAX if big else 0
        header = _LOCAL.pack(_SIG_LOCAL, _ZIP64_VERSION if big else 20,
                             _UTF8_FLAG | _DESCRIPTOR_FLAG, 0, 0, 0, 0, shown, shown,
                             len(encoded), len(extra)) + encoded + extra
        if size < _THREADED_CRC_BYTES:
            # Small records go out in one write call (state_dicts can hold thousands).
            crc = crc()
            self._write(header + bytes(payload) + _descriptor(crc, size, big))
        else:
            self._write(header)
            self._write(payload)
            crc = crc()
            self._write(_descriptor(crc, size, big))
        self._entries.append((encoded, crc, size, header_offset))

    def write_end(self):
        """Write the central directory (with zip64 records when sizes or counts need them)."""
        cd_start = self._pos
        for encoded, crc, size, offset in self._entries:
            fields = [size, size] if size >= _U32_MAX else []
            if offset >= _U32_MAX:
                fields.append(offset)
            extra = struct.pack("<HH", 1, 8 * len(fields)) + \
                struct.pack(f"<{len(fields)}Q", *fields) if fields else b""
            shown = _U32_MAX if size >= _U32_MAX else size
            self._write(_CENTRAL.pack(
                _SIG_CENTRAL, _ZIP64_VERSION, _ZIP64_VERSION if extra else 20,
                _UTF8_FLAG | _DESCRIPTOR_FLAG, 0,
                0, 0, crc, shown, shown, len(encoded), len(extra), 0, 0, 0, 0,
                min(offset, _U32_MAX)))
            self._write(encoded)
            self._write(extra)
        cd_size = self._pos - cd_start
        count = len(self._entries)
        if count >= _U16_MAX or cd_start >= _U32_MAX or cd_size >= _U32_MAX:
            eocd64_at = self._pos
            self._write(_EOCD64.pack(_SIG_EOCD64, _EOCD64.size - 12, _ZIP64_VERSION,
                                     _ZIP64_VERSION, 0, 0, count, count, cd_size, cd_start))
            self._write(_EOCD64_LOCATOR.pack(_SIG_LOCATOR, 0, eocd64_at, 1))
        self._write(_EOCD.pack(_SIG_EOCD, 0, 0, min(count, _U16_MAX), min(count, _U16_MAX),
                               min(cd_size, _U32_MAX), min(cd_start, _U32_MAX), 0))


# ----------------------------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------------------------
class _Entry:
    __slots__ = ("name", "method", "crc", "csize", "usize", "header_offset", "data_offset")


class ZipReader:
    """Reads records of a zip archive held in a seekable binary file object of known length."""

    def __init__(self, fileobj, length):
        self._f = fileobj
        self._length = length
        self._entries = {}
        self._order = []
        self._read_directory()

    # -- directory ------------------------------------------------------------------------------
    def _read_at(self, offset, n):
        if offset < 0 or n < 0 or offset + n > self._length:
            raise ZipFormatError(f"a record points outside the file (bytes {offset}..{offset + n}"
                                 f" of {self._length})")
        self._f.seek(offset)
        data = self._f.read(n)
        if len(data) != n:
            raise ZipFormatError("file is shorter than its directory says")
        return data

    def _find_end(self):
        """Offset and fields of the end-of-central-directory record (searched from the end)."""
        tail_len = min(self._length, _EOCD.size + _U16_MAX)
        tail = self._read_at(self._length - tail_len, tail_len)
        at = tail.rfind(b"PK\x05\x06")
        while at >= 0 and at + _EOCD.size > len(tail):
            at = tail.rfind(b"PK\x05\x06", 0, at)
        if at < 0:
            raise ZipFormatError("failed finding central directory")
        return self._length - tail_len + at, _EOCD.unpack_from(tail, at)

    def _read_directory(self):
        eocd_pos, eocd = self._find_end()
        count, cd_size, cd_start = eocd[4], eocd[5], eocd[6]
        cd_end = eocd_pos
        zip64 = self._read_zip64_end(eocd_pos)
        if zip64 is not None:
            count, cd_size, cd_start, cd_end = zip64
        elif count == _U16_MAX or cd_size == _U32_MAX or cd_start == _U32_MAX:
            raise ZipFormatError("zip64 end of central directory is missing")
        # Bytes before the archive (a prefix) shift every offset; zipfile tolerates it too.
        shift = cd_end - cd_size - cd_start
        if shift < 0:
            raise ZipFormatError("central directory is corrupt (bad size or offset)")
        if count > cd_size // _CENTRAL.size:
            raise ZipFormatError("central directory is corrupt (bad record count)")
        directory = self._read_at(cd_start + shift, cd_size)
        pos = 0
        for _ in range(count):
            entry, pos = self._parse_central(directory, pos, shift)
            if entry.name in self._entries:
                raise ZipFormatError(f"duplicate record {entry.name!r}")
            self._entries[entry.name] = entry
            self._order.append(entry.name)
        if not self._order:
            raise ZipFormatError("archive has no records")

    def _read_zip64_end(self, eocd_pos):
        """(count, size, start, end) of the central directory from zip64 records, or None
        when the archive has none."""
        at = eocd_pos - _EOCD64_LOCATOR.size
        if at < 0:
            return None
        loc = _EOCD64_LOCATOR.unpack(self._read_at(at, _EOCD64_LOCATOR.size))
        if loc[0] != _SIG_LOCATOR:
            return None
        end64_pos = at - _EOCD64.size
        if end64_pos < 0:
            raise ZipFormatError("zip64 end of central directory is missing")
        rec = _EOCD64.unpack(self._read_at(end64_pos, _EOCD64.size))
        if rec[0] != _SIG_EOCD64:
            raise ZipFormatError("zip64 end of central directory is corrupt")
        return rec[7], rec[8], rec[9], end64_pos

    def _parse_central(self, directory, pos, shift):
        if pos + _CENTRAL.size > len(directory):
            raise ZipFormatError("central directory is truncated")
        fields = _CENTRAL.unpack_from(directory, pos)
        if fields[0] != _SIG_CENTRAL:
            raise ZipFormatError("central directory entry has a bad signature")
        flags, method, crc, csize, usize = fields[3], fields[4], fields[7], fields[8], fields[9]
        name_len, extra_len, comment_len, offset = fields[10], fields[11], fields[12], fields[16]
        end = pos + _CENTRAL.size + name_len + extra_len + comment_len
        if end > len(directory):
            raise ZipFormatError("central directory is truncated")
        raw_name = directory[pos + _CENTRAL.size: pos + _CENTRAL.size + name_len]
        extra = directory[pos + _CENTRAL.size + name_len: pos + _CENTRAL.size + name_len
                          + extra_len]
        usize, csize, offset = _apply_zip64(extra, usize, csize, offset)
        if flags & 0x1:
            raise ZipFormatError("encrypted records are not supported")
        if method not in (0, 8):
            raise ZipFormatError(f"unsupported compression method {method}")
        entry = _Entry()
        entry.name = raw_name.decode("utf-8" if flags & _UTF8_FLAG else "cp437",
                                     errors="replace")
        entry.method, entry.crc, entry.csize, entry.usize = method, crc, csize, usize
        entry.header_offset = offset + shift
        entry.data_offset = None
        if method == 0 and csize != usize:
            raise ZipFormatError(f"record {entry.name!r} is stored with mismatched sizes")
        if method == 8 and usize > 1032 * csize + 1024:
            # Deflate cannot expand more than ~1032:1; a larger claim is a lie (a zip bomb).
            raise ZipFormatError(f"record {entry.name!r} claims an impossible inflated size")
        return entry, end

    # -- records --------------------------------------------------------------------------------
    def names(self):
        return list(self._order)

    def has_record(self, name):
        return name in self._entries

    def _entry(self, name):
        entry = self._entries.get(name)
        if entry is None:
            raise ZipFormatError(f"file not found: {name}")
        if entry.data_offset is None:
            header = self._read_at(entry.header_offset, _LOCAL.size)
            fields = _LOCAL.unpack(header)
            if fields[0] != _SIG_LOCAL:
                raise ZipFormatError(f"record {name!r} has a bad local header")
            entry.data_offset = entry.header_offset + _LOCAL.size + fields[9] + fields[10]
            if entry.data_offset + entry.csize > self._length:
                raise ZipFormatError(f"record {name!r} runs past the end of the file")
        return entry

    def record_size(self, name):
        return self._entry(name).usize

    def data_offset(self, name):
        """Where an uncompressed record's bytes start in the file (for memory-mapping)."""
        entry = self._entry(name)
        if entry.method != 0:
            raise ZipFormatError(f"record {name!r} is compressed and cannot be memory-mapped")
        return entry.data_offset

    def read_record(self, name, out=None):
        """The bytes of record ``name``, CRC-checked: a new bytes object, or written into
        ``out`` (a writable uint8 NumPy array of exactly the record's size)."""
        data = self.read_record_unchecked(name, out)
        self.crc_check(name, data)()
        return data

    def read_record_unchecked(self, name, out=None):
        """Like ``read_record`` without the CRC check (pair it with ``crc_check``)."""
        entry = self._entry(name)
        if out is not None and out.size != entry.usize:
            raise ZipFormatError(f"record {name!r} holds {entry.usize} bytes, expected "
                                 f"{out.size}")
        if entry.method == 8:
            data = self._inflate(entry)
            if out is None:
                return data
            out[...] = np.frombuffer(data, np.uint8)
            return out
        if out is None:
            return self._read_at(entry.data_offset, entry.csize)
        self._f.seek(entry.data_offset)
        if self._f.readinto(memoryview(out)) != entry.usize:
            raise ZipFormatError(f"record {name!r} is truncated")
        return out

    def crc_check(self, name, data):
        """Start checking ``data`` against record ``name``'s CRC-32; returns a function that
        raises ZipFormatError on a mismatch (large records are summed on a helper thread)."""
        expected = self._entry(name).crc
        crc = crc32_started(memoryview(data).cast("B"))

        def check():
            if crc() != expected:
                raise ZipFormatError(f"record {name!r} is corrupt (CRC-32 mismatch)")
        return check

    def _inflate(self, entry):
        compressed = self._read_at(entry.data_offset, entry.csize)
        # Bounded output: a record that inflates past its declared size (a zip bomb) stops.
        inflater = zlib.decompressobj(-15)
        try:
            data = inflater.decompress(compressed, entry.usize + 1)
        except zlib.error as e:
            raise ZipFormatError(f"record {entry.name!r} is corrupt ({e})") from None
        if len(data) != entry.usize:
            raise ZipFormatError(f"record {entry.name!r} inflates to the wrong size")
        return data


def _apply_zip64(extra, usize, csize, offset):
    """Replace 0xFFFFFFFF placeholders by the 64-bit values of a zip64 extra field."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, pos)
        if tag == 1:
            body = extra[pos + 4: pos + 4 + length]
            values = iter(struct.unpack_from(f"<{len(body) // 8}Q", body))
            usize = next(values, usize) if usize == _U32_MAX else usize
            csize = next(values, csize) if csize == _U32_MAX else csize
            offset = next(values, offset) if offset == _U32_MAX else offset
        pos += 4 + length
    return usize, csize, offset
