"""tf.gfile and tf.io.gfile against what real TensorFlow (2.21, compat.v1) does on local
files: the values, the lazy opening of GFile, and TF's error classes and messages."""
import os
import pathlib

import pytest

import symgrad.compat.v1 as tf


def test_directories_exist_list_walk_and_delete(tmp_path):
    d = str(tmp_path)
    deep = os.path.join(d, "a", "b")
    assert tf.gfile.Exists(deep) is False
    assert tf.gfile.MakeDirs(deep) is None and tf.gfile.MakeDirs(deep) is None   # twice: fine
    assert tf.gfile.IsDirectory(deep) and not tf.gfile.IsDirectory(deep + "zz")
    assert tf.gfile.MkDir(deep) is None                                       # exists: fine
    with tf.gfile.GFile(os.path.join(deep, "f.txt"), "w") as f:
        assert f.write("hello") is None
    assert tf.gfile.ListDirectory(deep) == ["f.txt"]
    assert tf.gfile.ListDirectory(os.path.join(d, "a")) == ["b"]
    assert list(tf.gfile.Walk(d)) == [(d, ["a"], []), (os.path.join(d, "a"), ["b"], []),
                                      (deep, [], ["f.txt"])]
    assert [w[0] for w in tf.io.gfile.walk(d, topdown=False)] == [deep, os.path.join(d, "a"), d]
    assert list(tf.gfile.Walk(d + "zz")) == []          # TF: nothing for a missing top
    st = tf.gfile.Stat(os.path.join(deep, "f.txt"))
    assert (st.length, st.is_directory, st.mtime_nsec % 10**9) == (5, False, 0)
    assert tf.gfile.Stat(deep).is_directory
    tf.gfile.DeleteRecursively(os.path.join(d, "a"))
    assert not tf.gfile.Exists(deep) and tf.gfile.ListDirectory(d) == []


def test_tfs_errors_for_missing_paths_directories_and_existing_targets(tmp_path):
    d = str(tmp_path)
    f = os.path.join(d, "f.txt")
    with tf.gfile.GFile(f, "w") as out:
        out.write("x")
    cases = [
        (lambda: tf.gfile.MkDir(os.path.join(d, "x", "y")), tf.errors.NotFoundError,
         f"{d}/x/y; No such file or directory"),
        (lambda: tf.gfile.ListDirectory(d + "zz"), tf.errors.NotFoundError,
         f"Could not find directory {d}zz"),
        (lambda: tf.gfile.ListDirectory(f), tf.errors.NotFoundError,
         f"Could not find directory {f}"),
        (lambda: tf.gfile.Remove(f + "2"), tf.errors.NotFoundError,
         f"{f}2; No such file or directory"),
        (lambda: tf.gfile.Remove(d), tf.errors.FailedPreconditionError, f"{d}; Is a directory"),
        (lambda: tf.gfile.Stat(f + "zz"), tf.errors.NotFoundError,
         f"{f}zz; No such file or directory"),
        (lambda: tf.gfile.DeleteRecursively(d + "zz"), tf.errors.NotFoundError,
         f"{d}zz not found"),
        (lambda: tf.gfile.MakeDirs(os.path.join(f, "q", "r")),
         tf.errors.FailedPreconditionError, f"{f} is not a directory"),
        (lambda: tf.gfile.Copy(f + "nope", f + ".d"), tf.errors.NotFoundError,
         f"{f}nope; No such file or directory"),
        (lambda: tf.gfile.Copy(f, f), tf.errors.AlreadyExistsError, "file already exists"),
        (lambda: tf.gfile.Rename(f + ".c", f), tf.errors.NotFoundError,
         f"{f}.c; No such file or directory"),
    ]
    for call, cls, message in cases:
        with pytest.raises(cls) as info:
            call()
        assert str(info.value) == message
    assert isinstance(info.value, LookupError)       # (NotFoundError is also a LookupError)


def test_copy_rename_glob_and_overwrite(tmp_path):
    d = str(tmp_path)
    for name in ("zeta.txt", "alpha.txt", "b.csv"):
        with tf.io.gfile.GFile(os.path.join(d, name), "w") as f:
            f.write(name)
    tf.gfile.Copy(os.path.join(d, "b.csv"), os.path.join(d, "c.csv"))
    with pytest.raises(tf.errors.AlreadyExistsError, match="^file already exists$"):
        tf.io.gfile.copy(os.path.join(d, "b.csv"), os.path.join(d, "c.csv"))
    tf.io.gfile.copy(os.path.join(d, "alpha.txt"), os.path.join(d, "c.csv"), overwrite=True)
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.gfile.Rename(os.path.join(d, "c.csv"), os.path.join(d, "b.csv"))
    tf.gfile.Rename(os.path.join(d, "c.csv"), os.path.join(d, "b.csv"), overwrite=True)
    assert tf.gfile.GFile(os.path.join(d, "b.csv")).read() == "alpha.txt"
    tf.io.gfile.rename(os.path.join(d, "b.csv"), os.path.join(d, "moved.csv"))
    # TF lists in the file system's order; symgrad sorts
    names = [os.path.basename(p) for p in tf.gfile.Glob(os.path.join(d, "*.txt"))]
    assert sorted(names) == ["alpha.txt", "zeta.txt"]
    assert tf.io.gfile.glob(os.path.join(d, "*.zz")) == []
    assert [os.path.basename(p) for p in tf.io.gfile.glob(
        [os.path.join(d, "*.csv"), os.path.join(d, "a*")])] == ["moved.csv", "alpha.txt"]
    assert sorted(tf.io.gfile.listdir(d)) == ["alpha.txt", "moved.csv", "zeta.txt"]
    tf.io.gfile.remove(os.path.join(d, "moved.csv"))
    tf.io.gfile.makedirs(os.path.join(d, "q", "r"))
    assert tf.io.gfile.isdir(os.path.join(d, "q")) and tf.io.gfile.exists(pathlib.Path(d))
    assert tf.io.gfile.exists(os.fsencode(d)) and tf.io.gfile.exists("file://" + d)
    assert tf.io.gfile.join("a", "b", "c") == "a/b/c"
    tf.io.gfile.rmtree(os.path.join(d, "q"))
    assert tf.io.gfile.stat(os.path.join(d, "zeta.txt")).length == 8


def test_gfile_reads_text_and_bytes_lines_positions_and_appends(tmp_path):
    f = str(tmp_path / "f.txt")
    with tf.gfile.GFile(f, "w") as out:
        out.write("hello\nworld\nlast")
    assert tf.gfile.GFile(f).read() == "hello\nworld\nlast"
    assert tf.gfile.Open(f, "rb").read() == b"hello\nworld\nlast"
    fh = tf.gfile.GFile(f)
    assert [fh.readline() for _ in range(4)] == ["hello\n", "world\n", "last", ""]
    assert tf.gfile.FastGFile(f).readlines() == ["hello\n", "world\n", "last"]
    assert list(tf.gfile.GFile(f)) == ["hello\n", "world\n", "last"]
    fb = tf.gfile.GFile(f, "rb")
    assert (fb.readline(), list(fb), fb.readline()) == (b"hello\n", [b"world\n", b"last"], b"")
    with tf.gfile.GFile(f) as fh:
        assert (fh.read(3), fh.tell(), fh.read(-1), fh.tell()) == ("hel", 3, "lo\nworld\nlast",
                                                                   16)
        fh.seek(2)
        assert fh.read(2) == "ll" and (fh.size(), fh.name, fh.mode) == (16, f, "r")
        fh.seek(-4, 2)
        assert fh.read() == "last"
    with tf.gfile.GFile(f, "a") as out:
        out.write("\nappended")
    with tf.gfile.GFile(f, "wb") as out:    # TF writes str and bytes in either mode
        out.write("str in wb")
        out.write(b"bytes")
    assert tf.gfile.GFile(f, "rb").read() == b"str in wbbytes"
    with tf.gfile.GFile(f, "w") as out:
        out.write(b"BYTES")
        out.flush()
        assert tf.gfile.GFile(f).read() == "BYTES"   # flushed: visible before close
    with tf.gfile.GFile(str(tmp_path / "u.txt"), "w") as out:
        out.write("ünï\n")
    assert tf.gfile.GFile(str(tmp_path / "u.txt")).read() == "ünï\n"
    assert tf.gfile.GFile(str(tmp_path / "u.txt")).size() == 6


def test_gfile_opens_lazily_and_raises_tfs_errors(tmp_path):
    d = str(tmp_path)
    missing = tf.gfile.GFile(os.path.join(d, "nope.txt"))     # no error yet, as TF's
    with pytest.raises(tf.errors.NotFoundError, match="nope.txt; No such file or directory$"):
        missing.read()
    nowhere = tf.gfile.GFile(os.path.join(d, "nodir", "x"), "w")
    with pytest.raises(tf.errors.NotFoundError, match="nodir/x; No such file or directory$"):
        nowhere.write("a")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="mode is not 'r' or 'w' or 'a' or 'r\\+' or 'w\\+' or 'a\\+'"):
        tf.gfile.GFile(os.path.join(d, "f"), "x")
    with pytest.raises(tf.errors.PermissionDeniedError, match="^File isn't open for writing$"):
        tf.gfile.GFile(os.path.join(d, "f"), "r").write("x")
    with pytest.raises(tf.errors.PermissionDeniedError, match="^File isn't open for reading$"):
        tf.gfile.GFile(os.path.join(d, "g"), "w").read()
    with pytest.raises(tf.errors.FailedPreconditionError, match="; Is a directory$"):
        tf.gfile.GFile(d).read()
    with pytest.raises(TypeError, match="Expected binary or unicode string, got \\['a'\\]"):
        tf.io.gfile.GFile(os.path.join(d, "k"), "w").write(["a"])
    with pytest.raises(UnicodeDecodeError):
        with open(os.path.join(d, "bin"), "wb") as out:
            out.write(b"\xff\xfe")
        tf.io.gfile.GFile(os.path.join(d, "bin")).read()
    with pytest.raises(TypeError, match="takes 1 positional argument"):
        tf.io.gfile.GFile(os.path.join(d, "bin")).readline(2)


def test_plus_modes_read_and_write(tmp_path):
    # (symgrad keeps Python's meaning of the + modes; module docstring)
    f = str(tmp_path / "f.txt")
    with tf.gfile.GFile(f, "w+") as fh:
        fh.write("new")
        fh.seek(0)
        assert fh.read() == "new"
    with tf.gfile.GFile(f, "a+") as fh:
        fh.write("X")
        fh.seek(0)
        assert fh.read() == "newX"


def test_remote_schemes_are_refused_with_tfs_error_and_advice():
    for path in ("gs://bucket/x", "hdfs://host/x", "s3://b/k"):
        scheme = path.split(":")[0]
        with pytest.raises(tf.errors.UnimplementedError) as info:
            tf.io.gfile.exists(path)
        assert str(info.value).startswith(
            f"File system scheme '{scheme}' not implemented (file: '{path}')")
        assert "local paths only" in str(info.value)
    with pytest.raises(tf.errors.UnimplementedError):
        tf.gfile.GFile("gs://bucket/model.ckpt", "w")
    with pytest.raises(tf.errors.UnimplementedError):
        tf.gfile.Glob("gs://bucket/*.csv")
    with pytest.raises(AttributeError, match="tf.gfile has no attribute 'Exist'"):
        tf.gfile.Exist


# Written against TF 2.21 independently of the tests above (probe 6's cifar10_train idiom):
# they check the same module from another side.
def test_the_train_dir_routine_and_files_probe6(tmp_path):
    d = str(tmp_path / "train")
    assert not tf.gfile.Exists(d)
    tf.gfile.MakeDirs(d + "/sub/deeper")
    tf.gfile.MakeDirs(d)
    assert tf.gfile.Exists(d) and tf.gfile.IsDirectory(d) and not tf.gfile.IsDirectory(d + "/x")
    with tf.gfile.GFile(d + "/a.txt", "w") as f:
        f.write("line1\nline2\n")
    with tf.gfile.Open(d + "/a.txt") as f:
        assert f.read() == "line1\nline2\n"
    with tf.gfile.GFile(d + "/a.txt", "r") as f:
        assert list(f) == ["line1\n", "line2\n"]
    with tf.gfile.GFile(d + "/a.txt", "a") as f:
        f.write("line3")
    with tf.gfile.FastGFile(d + "/a.txt", "rb") as f:
        assert f.read() == b"line1\nline2\nline3"
    f = tf.gfile.GFile(d + "/a.txt")
    assert (f.size(), f.readline(), f.tell(), f.read(2)) == (17, "line1\n", 6, "li")
    f.close()
    assert sorted(tf.gfile.ListDirectory(d)) == ["a.txt", "sub"]
    assert tf.gfile.Glob(d + "/*.txt") == [d + "/a.txt"]
    tf.gfile.Copy(d + "/a.txt", d + "/b.txt")
    with pytest.raises(tf.errors.AlreadyExistsError, match="file already exists"):
        tf.gfile.Copy(d + "/a.txt", d + "/b.txt")
    tf.gfile.Copy(d + "/a.txt", d + "/b.txt", overwrite=True)
    tf.gfile.Rename(d + "/b.txt", d + "/c.txt")
    assert sorted(tf.gfile.ListDirectory(d)) == ["a.txt", "c.txt", "sub"]
    assert tf.gfile.Stat(d + "/c.txt")[::2] == (17, False)
    assert [(os.path.relpath(p, d), sorted(ds), sorted(fs)) for p, ds, fs in tf.gfile.Walk(d)] \
        == [(".", ["sub"], ["a.txt", "c.txt"]), ("sub", ["deeper"], []),
            (os.path.join("sub", "deeper"), [], [])]
    tf.gfile.DeleteRecursively(d)
    assert not tf.gfile.Exists(d)
    tf.io.gfile.makedirs(d + "/x")
    assert tf.io.gfile.listdir(d) == ["x"] and tf.io.gfile.isdir(d + "/x")
    tf.io.gfile.rmtree(d + "/x")
    assert tf.io.gfile.glob(d + "/*") == []


def test_errors_are_tfs_probe6(tmp_path):
    d = str(tmp_path)
    unwritten = tf.gfile.GFile(d + "/w.txt", "w")   # lazy: nothing made until written
    unwritten.close()
    assert not os.path.exists(d + "/w.txt")
    cases = [(tf.gfile.Remove, d + "/c.txt", f"{d}/c.txt; No such file or directory"),
             (tf.gfile.DeleteRecursively, d + "/none", f"{d}/none not found"),
             (tf.gfile.ListDirectory, d + "/none", f"Could not find directory {d}/none"),
             (lambda p: tf.gfile.GFile(p).read(), d + "/n.txt",
              f"{d}/n.txt; No such file or directory"),
             (tf.gfile.Stat, d + "/none", f"{d}/none; No such file or directory")]
    for fn, arg, message in cases:
        with pytest.raises(tf.errors.NotFoundError) as info:
            fn(arg)
        assert str(info.value) == message
    with pytest.raises(tf.errors.InvalidArgumentError, match="mode is not 'r' or 'w'"):
        tf.gfile.GFile(d + "/a", "x")
    with open(d + "/file", "w"):
        pass
    with pytest.raises(tf.errors.FailedPreconditionError, match="file is not a directory"):
        tf.gfile.MakeDirs(d + "/file/x")
    with pytest.raises(tf.errors.UnimplementedError, match="scheme 'gs' not implemented"):
        tf.gfile.Exists("gs://bucket/data")
