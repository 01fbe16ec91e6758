"""tf.gfile / tf.io.gfile on local files, against what TF 2.21 does (the probe's
prog16.py): results, laziness, and TF's error classes and messages."""
import os

import pytest

import symgrad.compat.v1 as tf


def test_the_train_dir_routine_and_files(tmp_path):
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


def test_errors_are_tfs(tmp_path):
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
