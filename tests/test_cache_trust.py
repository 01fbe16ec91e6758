"""The compile cache trusts only what this user wrote, and repairs itself (issue 9).

On main before the fix: a 0777 cache directory of another user was used and a
module planted there (with a recomputed checksum line) ran; a corrupt index entry
broke every compile of its graph; deleting the directory broke ``batched()``; a
concurrent ``rm -rf`` failed 23-25 of 25 compiles; a read-only warm cache was
ignored; the cache grew without bound; ``cache=False`` left a temp dir per compile.
"""
import os
import shutil
import stat
import subprocess
import threading
import warnings

import numpy as np
import pytest

import symgrad as sg
from symgrad.lower import cache, cachedir

from .test_compile_api import _run


def graph(k):
    """A small program; ``k`` makes distinct graphs (and modules)."""
    x = sg.placeholder(shape=(2,), name="x")
    return sg.reduce_sum(sg.sin(x) * x + float(k)), x


def expected(k, v=(1.0, 2.0)):
    v = np.asarray(v)
    return float(np.sum(np.sin(v) * v + k))


@pytest.fixture
def cache_at(tmp_path, monkeypatch):
    """Point SYMGRAD_CACHE_DIR at ``tmp_path/name`` (made 0700 unless it exists)."""
    def use(name="cache"):
        path = str(tmp_path / name)
        monkeypatch.setenv("SYMGRAD_CACHE_DIR", path)
        return path
    return use


_BUILD = """
import symgrad as sg
x = sg.placeholder(shape=(2,), name="x")
f = sg.compile(sg.reduce_sum(sg.cos(x) * x * 1.25), [x])
print(f([1.0, 2.0]), sum(f.jit.kernel.stats.cache_hits.values()), f.module.__file__)
"""


def _built(out):
    value, hits, path = out.split()
    return float(value), int(hits), path


def test_directories_are_private_and_the_secret_is_0600(cache_at):
    path = cache_at()
    f = sg.compile(*graph(1))
    assert os.path.dirname(f.module.__file__) == path
    for d in [path, os.path.join(path, "index"), os.path.join(path, "__pycache__")]:
        assert stat.S_IMODE(os.stat(d).st_mode) == 0o700, d
    assert stat.S_IMODE(os.stat(os.path.join(path, "secret")).st_mode) == 0o600


@pytest.mark.parametrize("how", ["group/other writable", "owned by someone else"])
def test_an_untrusted_directory_is_refused_with_a_warning(cache_at, monkeypatch, how):
    path = cache_at("shared")
    monkeypatch.setattr(cachedir.tempfile, "tempdir", os.path.dirname(path))
    os.mkdir(path)
    if how == "group/other writable":
        os.chmod(path, 0o777)
    else:
        monkeypatch.setattr(cachedir, "_uid", lambda: os.stat(path).st_uid + 1)
    with pytest.warns(cachedir.CacheWarning, match="not using the compile cache"):
        f = sg.compile(*graph(2 if how.startswith("group") else 3))
    assert not f.module.__file__.startswith(path)
    assert f.module.__file__.startswith(cachedir.private_dir())
    assert f([1.0, 2.0]) == pytest.approx(expected(2 if how.startswith("group") else 3))
    assert os.listdir(path) == []  # nothing written where others could have planted it


def test_a_planted_module_with_a_valid_old_checksum_never_runs(tmp_path):
    import hashlib
    path = str(tmp_path / "c")
    module = _built(_run(_BUILD, path))[2]
    marker = tmp_path / "PWNED"
    with open(module) as fh:
        body = f"open({str(marker)!r}, 'w').write('x')\n" + fh.read()
    with open(module, "w") as fh:  # what main's cache accepted: a recomputed checksum line
        fh.write(f"# symgrad-checksum: {hashlib.sha256(body.encode()).hexdigest()}\n{body}")
    value, _, again = _built(_run(_BUILD, path))
    assert not marker.exists() and again == module
    assert value == pytest.approx(1.25 * float(np.sum(np.cos([1.0, 2.0]) * [1.0, 2.0])))
    with open(module) as fh:
        assert "PWNED" not in fh.read()  # rewritten with the text symgrad lowered


def test_an_index_entry_counts_only_with_this_users_hmac(cache_at):
    from symgrad.compiler import structure_key
    from symgrad.lower.ir import graph_key
    path = cache_at()
    keys, texts = {}, {}
    for k in (4, 5):
        y, x = graph(k)
        texts[k] = sg.compile(y, [x])._text
        keys[k] = structure_key(graph_key([y], [x], False), ("leaf",))
    assert cache.lookup(keys[4]) == texts[4]
    index = os.path.join(path, "index")
    with open(os.path.join(index, keys[5][:32])) as fh:
        other = fh.read()
    with open(os.path.join(index, keys[4][:32]), "w") as fh:  # 4 claims 5's valid module
        fh.write(other)
    assert cache.lookup(keys[4]) is None
    assert cache.lookup(keys[5]) == texts[5]
    with open(os.path.join(path, "secret"), "wb") as fh:  # another secret: nothing counts
        fh.write(os.urandom(32))
    assert cache.lookup(keys[5]) is None


@pytest.mark.parametrize("damage", ["not ascii", "a directory"])
def test_a_damaged_index_entry_is_rebuilt(cache_at, damage):
    path = cache_at()
    y, x = graph(6)
    assert sg.compile(y, [x])([1.0, 2.0]) == pytest.approx(expected(6))
    index = os.path.join(path, "index")
    for name in os.listdir(index):
        entry = os.path.join(index, name)
        os.unlink(entry)
        if damage == "not ascii":
            with open(entry, "wb") as fh:
                fh.write(b"\xff")
        else:
            os.mkdir(entry)
    y, x = graph(6)
    assert sg.compile(y, [x])([1.0, 2.0]) == pytest.approx(expected(6))
    entries = [os.path.join(index, n) for n in os.listdir(index)]
    assert entries and all(os.path.isfile(e) and len(open(e).read().split()) == 2
                           for e in entries)


def test_deleting_the_cache_directory_mid_process_recovers(cache_at):
    path = cache_at()
    f = sg.compile(*graph(7))
    shutil.rmtree(path)
    out = f.batched(np.array([[1.0, 2.0], [0.0, 0.0]]))
    np.testing.assert_allclose(out, [expected(7), expected(7, (0.0, 0.0))])
    shutil.rmtree(path, ignore_errors=True)
    assert sg.compile(*graph(8))([1.0, 2.0]) == pytest.approx(expected(8))


def test_compiles_survive_a_concurrent_rm_rf_loop(cache_at):
    path = cache_at()
    stop = threading.Event()

    def remove():
        while not stop.is_set():
            shutil.rmtree(path, ignore_errors=True)
    thread = threading.Thread(target=remove)
    thread.start()
    try:
        values = [sg.compile(*graph(100 + k))([1.0, 2.0]) for k in range(5)]
    finally:
        stop.set()
        thread.join()
    np.testing.assert_allclose(values, [expected(100 + k) for k in range(5)])


def test_a_directory_removed_while_checked_is_made_again_without_a_warning(cache_at, monkeypatch):
    """A concurrent ``rm -rf`` between "it exists" and its check is no reason to tell
    the user to ``chmod 700`` a directory that is gone: it is made again and used."""
    path = cache_at()
    cachedir.make_private(path)
    real, calls = cachedir.problem, []

    def removed_first(p):
        calls.append(p)
        if len(calls) == 1:
            shutil.rmtree(p)
        return real(p)
    monkeypatch.setattr(cachedir, "problem", removed_first)
    with warnings.catch_warnings():
        warnings.simplefilter("error", cachedir.CacheWarning)
        where = cachedir.locate(path)
    assert len(calls) == 2 and where.read == where.write == path, where
    assert cachedir.problem(path) is None


def _make_read_only(path):
    """Make ``path`` and its subdirectories unwritable, or skip (root without chattr)."""
    dirs = [path] + [os.path.join(path, s) for s in cachedir.SUBDIRS
                     if os.path.isdir(os.path.join(path, s))]
    if os.geteuid() != 0:
        for d in dirs:
            os.chmod(d, 0o500)
        return lambda: [os.chmod(d, 0o700) for d in dirs]
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", *dirs]).returncode:
        pytest.skip("running as root without chattr: cannot make a directory read-only")
    return lambda: subprocess.run(["chattr", "-i", *dirs], check=True)


def test_a_read_only_warm_cache_is_used(tmp_path):
    path = str(tmp_path / "warm")
    first = _built(_run(_BUILD, path))
    undo = _make_read_only(path)
    try:
        value, hits, module = _built(_run(_BUILD, path, TMPDIR=str(tmp_path)))
    finally:
        undo()
    assert value == first[0]
    assert hits == 1  # machine code loaded from the read-only cache, not compiled again
    assert not module.startswith(path)  # imported from a private copy


def test_an_unwritable_directory_that_passes_os_access_falls_back(cache_at, monkeypatch):
    path = cache_at("locked")
    cachedir.make_private(path)
    undo = _make_read_only(path)
    monkeypatch.setattr(os, "access", lambda *a, **k: True)
    try:
        f = sg.compile(*graph(9))
    finally:
        undo()
    assert f([1.0, 2.0]) == pytest.approx(expected(9))
    assert f.module.__file__.startswith(cachedir.private_dir())


def test_eviction_keeps_the_cache_under_its_cap_least_recently_used_first(cache_at,
                                                                          monkeypatch):
    path = cache_at()
    fs = [sg.compile(*graph(200 + k)) for k in range(3)]
    sizes = cachedir.usage(path)["bytes"]
    monkeypatch.setenv("SYMGRAD_CACHE_MAX_MB", str(sizes / 2 ** 20 * 0.9))
    os.utime(fs[0].module.__file__)  # graph 200 was used most recently of the three
    for f in fs[1:]:
        os.utime(f.module.__file__, (1, 1))
    newest = sg.compile(*graph(203))
    assert cachedir.usage(path)["bytes"] <= cachedir.max_bytes()
    assert os.path.exists(newest.module.__file__)
    assert not os.path.exists(fs[1].module.__file__)  # the least recently used went first
    assert fs[1]([1.0, 2.0]) == pytest.approx(expected(201))  # loaded modules keep working


def test_cache_false_leaves_no_temporary_directory(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    _run("""
        import symgrad as sg
        for k in range(3):
            x = sg.placeholder(shape=(2,), name="x")
            assert sg.compile(x * (k + 7.0), [x], cache=False)([1.0, 1.0])[0] == k + 7.0
        """, str(tmp_path / "unused"), TMPDIR=str(tmp))
    assert os.listdir(tmp) == []
    assert not (tmp_path / "unused").exists()


def test_cache_info_and_clear_commands(cache_at, capsys):
    from symgrad.cli import main
    path = cache_at()
    sg.compile(*graph(10))
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"directory: {path} (trusted)" in out and "modules: 1," in out
    assert main(["cache", "clear"]) == 0
    assert "removed" in capsys.readouterr().out
    assert cachedir.usage(path)["bytes"] == 0
    assert sg.compile(*graph(11))([1.0, 2.0]) == pytest.approx(expected(11))


def test_cache_clear_refuses_an_untrusted_directory(cache_at, capsys):
    from symgrad.cli import main
    path = cache_at("open")
    os.mkdir(path)
    os.chmod(path, 0o777)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cachedir.CacheWarning)
        assert main(["cache", "clear"]) == 2
    assert "not clearing" in capsys.readouterr().err
