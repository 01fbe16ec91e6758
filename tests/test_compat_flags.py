"""tf.flags / tf.app.flags and tf.app.run against what TF 2.21 (compat.v1, absl flags)
does with the same command lines: values, what main receives, messages, exit status."""
import os
import subprocess
import sys

import pytest

import symgrad.compat.v1 as tf


def flag_set():
    """A fresh FlagValues with the flags of the probe's scripts (tf.flags.FLAGS is global,
    and defining a name twice is an error, as in TF)."""
    fv = tf.flags.FlagValues()
    F = tf.app.flags
    F.DEFINE_integer("n", 3, "an int", lower_bound=0, flag_values=fv)
    F.DEFINE_boolean("b", True, "a bool", flag_values=fv)
    F.DEFINE_float("f", 0.5, "float", flag_values=fv)
    F.DEFINE_string("s", None, "str", flag_values=fv)
    F.DEFINE_list("l", [], "list", flag_values=fv)
    F.DEFINE_multi_string("m", None, "multi", flag_values=fv)
    F.DEFINE_enum("e", "a", ["a", "B"], "enum", flag_values=fv)
    F.DEFINE_integer("max_steps", 3, "steps", flag_values=fv)
    return fv


def values(fv):
    return [fv.n, fv.b, fv.f, fv.s, fv.l, fv.m, fv.e]


def test_command_lines_parse_as_absl_parses_them():
    fv = flag_set()
    assert fv(["p"]) == ["p"] and values(fv) == [3, True, 0.5, None, [], None, "a"]
    # known_only (tf.app.run's): unknown flags stay, '--' stays, GNU order
    assert fv(["p", "a", "--bogus=1", "b", "--n", "4", "--nobogus2", "--", "--n=9", "z"],
              known_only=True) == ["p", "a", "--bogus=1", "b", "--nobogus2", "--", "--n=9", "z"]
    assert fv.n == 4
    assert fv(["p", "--n=0x10", "--b=false", "--f=1e-3", "-s=hi", "--l= a , b,c", "--m=x",
               "--m", "y", "--e=B", "x", "--", "--n=9"]) == ["p", "x", "--n=9"]
    assert values(fv) == [16, False, 0.001, "hi", ["a", "b", "c"], ["x", "y"], "B"]
    assert fv(["p", "--b", "false"]) == ["p", "false"] and fv.b is True   # no value taken
    fv(["p", "--nob", "--l=", "-n", "5"])
    assert (fv.b, fv.l, fv.n) == (False, [], 5)
    assert fv["n"].present == 3 and fv["n"].default == 3 and not fv["n"].using_default_value


@pytest.mark.parametrize("argv, error, message", [
    (["--bogus=1"], "UnrecognizedFlagError", "Unknown command line flag 'bogus'"),
    (["--ns=1"], "UnrecognizedFlagError", "Unknown command line flag 'ns'"),
    (["--max_step=3"], "UnrecognizedFlagError",
     "Unknown command line flag 'max_step'. Did you mean: max_steps ?"),
    (["--nomax_steps"], "UnrecognizedFlagError",
     "Unknown command line flag 'nomax_steps'. Did you mean: max_steps ?"),
    (["--non"], "UnrecognizedFlagError", "Unknown command line flag 'non'"),
    (["--n=-1"], "IllegalFlagValueError", "flag --n=-1: -1 is not a non-negative integer"),
    (["--e=b"], "IllegalFlagValueError", "flag --e=b: value should be one of <a|B>"),
    (["--b=yes"], "IllegalFlagValueError",
     "flag --b=yes: ('Non-boolean argument to boolean flag', 'yes')"),
    (["--n"], "Error", "Missing value for flag --n"),
    (["--f=abc"], "IllegalFlagValueError", "flag --f=abc: could not convert string to float: "
                                           "'abc'"),
    (["--n=abc"], "IllegalFlagValueError",
     "flag --n=abc: invalid literal for int() with base 10: 'abc'"),
])
def test_bad_command_lines_raise_absls_errors(argv, error, message):
    with pytest.raises(getattr(tf.flags, error)) as info:
        flag_set()(["p"] + argv)
    assert str(info.value) == message and isinstance(info.value, tf.flags.Error)


def test_definitions_defaults_assignment_and_validators():
    fv = flag_set()
    F = tf.flags
    with pytest.raises(F.DuplicateFlagError, match="The flag 'n' is defined twice. First from "
                       ".*Description from first occurrence: an int"):
        F.DEFINE_integer("n", 3, "again", flag_values=fv)
    for define, default, message in [
            (F.DEFINE_integer, 1.5, "flag --x=1.5: Expect argument to be a string or int, "
                                   "found <class 'float'>"),
            (F.DEFINE_boolean, "maybe", "flag --x=maybe: ('Non-boolean argument to boolean "
                                        "flag', 'maybe')"),
            (F.DEFINE_string, 5, "flag --x=5: flag value must be a string, found "
                                 "\"<class 'int'>\"")]:
        with pytest.raises(F.IllegalFlagValueError) as info:
            define("x", default, "bad default", flag_values=fv)
        assert str(info.value) == message
    F.DEFINE_integer("k", "7", "string default", flag_values=fv)
    F.DEFINE_float("lr", 1, "int default", flag_values=fv)
    F.DEFINE_string(flag_name="old", default_value="o", docstring="old names", flag_values=fv)
    fv.mark_as_parsed()
    assert (fv.k, fv.lr, fv.old) == (7, 1.0, "o") and isinstance(fv.lr, float)
    with pytest.raises(F.UnrecognizedFlagError, match="Unknown command line flag 'zz'"):
        fv.zz = 3
    with pytest.raises(AttributeError):
        fv.zz
    with pytest.raises(F.IllegalFlagValueError, match="flag --n=-5: -5 is not a non-negative"):
        fv.n = -5
    fv.n = 7
    assert fv.n == 7 and fv.flag_values_dict()["n"] == 7
    F.register_validator("k", lambda v: v < 100, message="k too big", flag_values=fv)
    with pytest.raises(F.IllegalFlagValueError, match="^flag --k=200: k too big$"):
        fv(["p", "--k=200"])
    F.mark_flag_as_required("s", flag_values=fv)
    fv.unparse_flags()
    assert not fv.is_parsed()
    with pytest.raises(F.IllegalFlagValueError, match=r"^flag --s=None: Flag --s must have "
                       r"a value other than None\.$"):
        fv(["p"])


def test_multi_flags_accumulate_and_bounds_read_as_absl_writes_them():
    fv = tf.flags.FlagValues()
    tf.flags.DEFINE_multi_integer("mi", [1], "multi", flag_values=fv)
    tf.flags.DEFINE_integer("steps", 3, "an int", lower_bound=1, upper_bound=10, flag_values=fv)
    tf.flags.DEFINE_float("rate", 0.1, "float", lower_bound=0.0, flag_values=fv)
    fv(["p", "--mi=4", "--mi", "5"])
    assert fv.mi == [4, 5]
    fv(["p", "--mi=6"])
    assert fv.mi == [4, 5, 6]
    with pytest.raises(tf.flags.IllegalFlagValueError,
                       match=r"flag --steps=11: 11 is not an integer in the range \[1, 10\]"):
        fv(["p", "--steps=11"])
    with pytest.raises(tf.flags.IllegalFlagValueError,
                       match="flag --rate=-1: -1.0 is not a non-negative number"):
        fv(["p", "--rate=-1"])


def test_app_run_passes_the_other_arguments_to_main_and_exits_with_its_result():
    F = tf.app.flags
    F.DEFINE_integer("probe6_max_steps", 100, "Number of batches to run.")
    F.DEFINE_boolean("probe6_fake", False, "fake")
    seen = []

    def main(argv):
        seen.append((argv, F.FLAGS.probe6_max_steps, F.FLAGS.probe6_fake))
        return 3
    with pytest.raises(SystemExit) as done:
        tf.app.run(main=main, argv=["train.py", "--probe6_max_steps=5", "extra",
                                    "--probe6_fake", "--unknown=1"])
    assert done.value.code == 3
    assert seen == [(["train.py", "extra", "--unknown=1"], 5, True)]
    assert tf.flags is tf.app.flags and tf.compat.v1.flags.FLAGS is F.FLAGS


SCRIPT = '''\
import symgrad.compat.v1 as tf
FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_integer('max_steps', 100, 'Number of batches to run.')
tf.app.flags.DEFINE_string('act', 'tanh', 'activation')

def main(_):
    w = tf.Variable(0.0)
    loss = tf.square(w - 2.0)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(FLAGS.max_steps):
            sess.run(train)
        print(_, FLAGS.act, round(float(sess.run(w)), 5))

if __name__ == '__main__':
    tf.app.run()
'''


def test_a_script_run_from_the_command_line(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))

    def run(*args):
        return subprocess.run([sys.executable, str(script), *args], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=60)
    done = run("--max_steps=5", "rest")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"['{script}', 'rest'] tanh 1.34464\n"   # TF prints the same
    helped = run("--help")
    assert helped.returncode == 1
    assert f"USAGE: {script} [flags]" in helped.stdout
    assert "  --max_steps: Number of batches to run.\n    (default: '100')\n" \
           "    (an integer)" in helped.stdout
    bad = run("--max_steps=abc")
    assert bad.returncode == 1 and bad.stderr.rstrip().endswith(
        "IllegalFlagValueError: flag --max_steps=abc: invalid literal for int() with base 10: "
        "'abc'")


def test_the_notebook_idiom_deletes_flags_to_define_them_again():
    fv = flag_set()
    for name in list(fv._flags()):    # StackOverflow's del_all_flags(FLAGS)
        fv.__delattr__(name)
    assert len(fv) == 0
    tf.flags.DEFINE_integer("n", 64, "batch", flag_values=fv)
    assert fv(["nb", "-f", "/run/kernel.json"], known_only=True) == ["nb", "-f",
                                                                    "/run/kernel.json"]
    assert fv.n == 64
    with pytest.raises(AttributeError, match="nope"):
        delattr(fv, "nope")
    fv.remove_flag_values(["n"])
    assert "n" not in fv
