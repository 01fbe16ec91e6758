"""The pieces of TF's checkpoint format (CRC-32C, the table file, the bundle) and the
``checkpoint`` state file, against known values and what TensorFlow 2.21 wrote."""
import hashlib
import os

import numpy as np
import pytest

import symgrad.compat.v1 as tf
from symgrad.compat import crc32c, sstable, tensor_bundle

DATA = os.path.join(os.path.dirname(__file__), "data", "checkpoints")


def test_crc32c_check_values_and_the_long_path():
    # RFC 3720's CRC-32C examples (iSCSI), and the standard check value
    assert crc32c.crc32c(b"123456789") == 0xE3069283
    assert crc32c.crc32c(bytes(32)) == 0x8A9136AA
    assert crc32c.crc32c(b"\xff" * 32) == 0x62A8AB43
    assert crc32c.crc32c(bytes(range(32))) == 0x46DD794E
    data = np.random.default_rng(0).integers(0, 256, 100_003, dtype=np.uint8).tobytes()
    # the lane-parallel path (long inputs) equals the byte loop
    assert crc32c.crc32c(data) == crc32c._update(0xFFFFFFFF, data) ^ 0xFFFFFFFF
    assert crc32c.unmask(crc32c.masked_crc32c(data)) == crc32c.crc32c(data)


def test_table_round_trip_and_tfs_multi_block_bytes(tmp_path):
    entries = [(b"", b"x"), (b"a", b""), (b"ab", b"\x00" * 3), (b"b\xff", b"1")]
    assert sstable.read_table(sstable.write_table(entries)) == entries
    # index keys: LevelDB's bytewise separator (shortest key in [start, limit)) and
    # successor (after a data block's last key); TF's 12,000 names below need neither
    assert sstable._separator(b"abc1xyz", b"abe") == b"abd"
    assert sstable._separator(b"abc", b"abd") == b"abc"   # c + 1 is not below d
    assert sstable._separator(b"ab", b"abc") == b"ab"     # a prefix of the limit
    assert sstable._successor(b"step") == b"t" and sstable._successor(b"\xff\xffa") == b"\xff\xffb"
    with pytest.raises(ValueError, match="keys must increase"):
        sstable.write_table([(b"b", b""), (b"a", b"")])
    # 12,000 tensors: the index spans two 256 KiB data blocks; TF 2.21's SaveV2 of the
    # same names and values (make_tf_checkpoints.py) gave files with these sha256
    prefix = str(tmp_path / "m")
    tensor_bundle.write_bundle(prefix, {f"layer_{i:05d}/kernel": np.float32(i)
                                        for i in range(12000)})
    digests = [hashlib.sha256(open(p, "rb").read()).hexdigest()
               for p in (prefix + ".index", prefix + ".data-00000-of-00001")]
    assert digests == ["82ee5ce71d2d76d7753e8ca8a596cf1df1aa42daf26a6ac7deabb4011a14425e",
                       "86a128597512c79354658b362caaad5429c43d0c7913e2d23ff2743653d188a6"]
    assert tensor_bundle.Bundle(prefix).tensor("layer_11999/kernel") == 11999


def test_corrupt_and_unsupported_files_say_so(tmp_path):
    prefix = str(tmp_path / "m")
    tensor_bundle.write_bundle(prefix, {"w": np.arange(3.0)})
    data = open(prefix + ".data-00000-of-00001", "rb").read()
    open(prefix + ".data-00000-of-00001", "wb").write(data[:-1] + b"\x01")
    with pytest.raises(ValueError, match="'w'.*do not match their checksum"):
        tensor_bundle.Bundle(prefix).tensor("w")
    index = bytearray(open(prefix + ".index", "rb").read())
    index[3] ^= 1
    open(prefix + ".index", "wb").write(bytes(index))
    with pytest.raises(ValueError, match="checksum does not match"):
        tensor_bundle.Bundle(prefix)
    open(prefix + ".index", "wb").write(b"not a table")
    with pytest.raises(ValueError, match="magic number"):
        tf.train.list_variables(prefix)
    with pytest.raises(TypeError, match="'names'.*strings are not supported"):
        tensor_bundle.write_bundle(prefix, {"names": np.array(["a", "b"])})
    # a string tensor TF wrote (DT_STRING is 7): listed, but reading it says why not
    entry = b"\x08\x07\x12\x04\x12\x02\x08\x01"
    open(prefix + ".index", "wb").write(sstable.write_table(
        [(b"", tensor_bundle._header()), (b"s", entry)]))
    assert tf.train.list_variables(prefix) == [("s", [1])]
    assert tf.train.load_checkpoint(prefix).get_variable_to_dtype_map() == {"s": tf.string}
    with pytest.raises(TypeError, match="'s' holds string values"):
        tf.train.load_variable(prefix, "s")


def test_slice_keys_are_tfs_ordered_code():
    # TF 2.21's key of rows 100-199 of a [300, 3] partitioned "emb" (printed from its index)
    assert tensor_bundle.slice_key("emb", [100, 0], [100, 3]) == \
        b"\x00emb\x00\x01\x01\x02\xc0d\xc0d\x80\x83"
    numbers = [-2**63, -2**40, -8193, -65, -64, -1, 0, 63, 64, 8191, 8192, 2**40, 2**63 - 1]
    keys = [tensor_bundle._signed_key(n) for n in numbers]
    assert keys == sorted(keys) and len(keys[0]) == len(keys[-1]) == 10   # order kept
    assert keys[5:9] == [b"\x7f", b"\x80", b"\xbf", b"\xc0\x40"]


def test_a_sharded_checkpoint_reads_from_each_data_file():
    # TF 2.21's Saver(sharded=True) over two CPU devices wrote two data files
    folder = os.path.join(DATA, "sharded")
    assert sorted(f for f in os.listdir(folder) if ".data-" in f) == [
        "model.ckpt-2.data-00000-of-00002", "model.ckpt-2.data-00001-of-00002"]
    reader = tf.train.load_checkpoint(folder)
    assert reader.get_tensor("a").tolist() == [0.0, 1.0, 2.0]
    assert reader.get_tensor("b").tolist() == [0, 1, 2, 3]
    assert reader.get_tensor("c").tolist() == np.eye(2).tolist()


def test_tfs_v1_format_reads_and_restores():
    # TF 2.21's Saver(write_version=SaverDef.V1): one file at the prefix, no .index
    folder = os.path.join(DATA, "v1")
    path = tf.train.latest_checkpoint(folder)
    assert path == os.path.join(folder, "model.ckpt-1") and tf.train.checkpoint_exists(path)
    assert tf.train.list_variables(folder) == [
        ("d", [3]), ("f", [2, 2]), ("flag", [2]), ("i", [4]), ("p", [4, 2]), ("step", []),
        ("u8", [2])]
    reader = tf.train.load_checkpoint(path)
    expected = {"f": np.array([[1.5, -2.25], [0.1, 3.0]], np.float32),
                "d": np.array([-np.inf, 5e-324, np.pi]),
                "i": np.array([1, -2, 2**31 - 1, -2**31], np.int32),
                "step": np.array(-(2**40) - 3, np.int64), "flag": np.array([True, False]),
                "u8": np.array([0, 255], np.uint8),
                "p": np.arange(8, dtype=np.float32).reshape(4, 2) + 0.5}   # two slices
    for name, value in expected.items():
        got = np.asarray(reader.get_tensor(name))
        assert got.dtype == value.dtype and got.tobytes() == value.tobytes(), name
    with tf.Graph().as_default():
        f = tf.Variable(np.zeros((2, 2), np.float32), name="f")
        with tf.Session() as sess:
            tf.train.Saver([f]).restore(sess, path)
            assert sess.run(f).tolist() == expected["f"].tolist()


def test_older_symgrad_npz_checkpoints_still_restore(tmp_path):
    np.savez(str(tmp_path / "model.ckpt-7.npz"), w=np.array([3.0, 4.0], np.float32))
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-7"\n')
    path = tf.train.latest_checkpoint(str(tmp_path))
    assert path == str(tmp_path / "model.ckpt-7") and tf.train.checkpoint_exists(path)
    assert tf.train.list_variables(str(tmp_path)) == [("w", [2])]
    with tf.Graph().as_default():
        w = tf.Variable([0.0, 0.0], name="w")
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            assert sess.run(w).tolist() == [3.0, 4.0]


def _save_steps(saver, path, steps):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return [saver.save(sess, path, global_step=k) for k in steps]


def test_checkpoint_state_file_is_tfs(tmp_path, monkeypatch):
    # TF 2.21 (Saver(max_to_keep=2), three saves of "model.ckpt" in the working
    # directory, then one of "a/b/m") wrote these two files
    monkeypatch.chdir(tmp_path)
    with tf.Graph().as_default():
        tf.Variable([1.0, 2.0], name="w")
        saver = tf.train.Saver(max_to_keep=2)
        assert _save_steps(saver, "model.ckpt", range(3))[-1] == "model.ckpt-2"
        assert (tmp_path / "checkpoint").read_text() == (
            'model_checkpoint_path: "model.ckpt-2"\n'
            'all_model_checkpoint_paths: "model.ckpt-1"\n'
            'all_model_checkpoint_paths: "model.ckpt-2"\n')
        assert not os.path.exists("model.ckpt-0.index")   # deleted, as TF deletes it
        assert tf.train.get_checkpoint_state(".").all_model_checkpoint_paths == [
            "./model.ckpt-1", "./model.ckpt-2"]
        os.makedirs("a/b")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert saver.save(sess, "a/b/m") == "a/b/m"
        assert (tmp_path / "a" / "b" / "checkpoint").read_text() == (
            'model_checkpoint_path: "m"\n'
            'all_model_checkpoint_paths: "../../model.ckpt-2"\n'
            'all_model_checkpoint_paths: "m"\n')
        # an absolute directory keeps absolute paths (TF: "/tmp/.../m" as given)
        absolute = str(tmp_path / "abs" / "m")
        _save_steps(tf.train.Saver(), absolute, [4])
        assert (tmp_path / "abs" / "checkpoint").read_text() == (
            f'model_checkpoint_path: "{absolute}-4"\n'
            f'all_model_checkpoint_paths: "{absolute}-4"\n')


def test_update_checkpoint_state_and_checkpoints_iterator_as_tf(tmp_path, monkeypatch):
    # TF 2.21 wrote these three state files for the same calls
    monkeypatch.chdir(tmp_path)
    os.makedirs("ucs")
    absolute = str(tmp_path / "ucs")
    tf.train.update_checkpoint_state(absolute, absolute + "/m-3", [absolute + "/m-1"])
    assert (tmp_path / "ucs" / "checkpoint").read_text() == (
        f'model_checkpoint_path: "{absolute}/m-3"\n'
        f'all_model_checkpoint_paths: "{absolute}/m-1"\n'
        f'all_model_checkpoint_paths: "{absolute}/m-3"\n')
    tf.train.update_checkpoint_state("ucs", "ucs/m-4", latest_filename="other")
    assert (tmp_path / "ucs" / "other").read_text() == (
        'model_checkpoint_path: "m-4"\nall_model_checkpoint_paths: "m-4"\n')
    tf.train.update_checkpoint_state("ucs", "m-5", latest_filename="other2")
    assert (tmp_path / "ucs" / "other2").read_text() == (
        'model_checkpoint_path: "../m-5"\nall_model_checkpoint_paths: "../m-5"\n')
    # TF: the latest checkpoint, then none more within the timeout; nothing when none
    adam = os.path.join(DATA, "adam")
    assert list(tf.train.checkpoints_iterator(adam, timeout=0)) == [
        os.path.join(adam, "model.ckpt-5")]
    assert list(tf.train.checkpoints_iterator(str(tmp_path / "ucs"), timeout=0)) == []
    assert (tf.train.SaverDef.LEGACY, tf.train.SaverDef.V1, tf.train.SaverDef.V2) == (0, 1, 2)
    with tf.Graph().as_default():   # symgrad writes V2 whatever is asked (module docstring)
        tf.Variable(1.0, name="v")
        path = _save_steps(tf.train.Saver(write_version=tf.train.SaverDef.V1), "v1m", [0])[0]
        assert os.path.exists(path + ".index")
