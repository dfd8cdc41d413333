"""Helpers shared by the datasets: file checks and the no-download message."""

import hashlib
import os


def calculate_md5(fpath, chunk_size=1024 * 1024):
    md5 = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        while chunk := f.read(chunk_size):
            md5.update(chunk)
    return md5.hexdigest()


def check_md5(fpath, md5, **kwargs):
    return md5 == calculate_md5(fpath, **kwargs)


def check_integrity(fpath, md5=None):
    """The file exists (and has this md5, when one is given)."""
    if not os.path.isfile(fpath):
        return False
    return True if md5 is None else check_md5(fpath, md5)


def no_download(dataset, folder, files, url=None):
    """The error for ``download=True``: cinder never downloads; it says where files go."""
    where = f" (from {url})" if url else ""
    return RuntimeError(
        f"{dataset}: cinder does not download datasets. Place {', '.join(files)}{where} in "
        f"{os.path.abspath(folder)} and call again with download=False.")
