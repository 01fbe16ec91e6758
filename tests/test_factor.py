"""SVD and QR (``ops.factor``): TF1 programs with ``tf.svd``/``tf.qr`` against TF 2.21's
printed numbers (tall, wide, batched and full-size factors; gradients of sign-free
losses, of ``compute_uv=False`` and of QR's factors, whose signs TF shares), the
compiled path (LAPACK in a driver) against the reference evaluator, and TF's refusals.
The registry-driven tests cover the derivative rules (finite differences, second
order, forward mode, batching)."""
import numpy as np
import pytest

import symgrad as sg
import symgrad.compat.v1 as tf
from symgrad.errors import CompileError

# TF 2.21 (tests/test_factor.py builds the same graph)
TF = {
        's': [2.715638518, 1.917569344, 0.558951031],
        'rec': [[0.034192767, 1.35974754, 1.224721079], [-0.510307077, -0.297969511, -0.527384193], [0.569726358, -0.056064439, 0.746885616], [-1.847324799, 1.566548775, -0.09643216], [0.680378453, -0.136566334, -0.379098567]],
        'abs_u': [[0.427946579, 0.736248549, 0.141267516], [0.014541835, 0.408369235, 0.200544648], [0.110958813, 0.452287332, 0.36916068], [0.86784714, 0.293758412, 0.118136642], [0.226229406, 0.017742818, 0.888588464]],
        'L1': 10.754145939,
        'g1a': [[1.853909515, 0.694865434, 1.979181052], [-0.705537899, -0.198199742, -1.322986124], [1.201218531, 0.645130635, 1.063936939], [-0.770668834, -0.064620927, -1.336464787], [0.644005246, 1.112125781, -0.658280818]],
        'g1b': [[0.246927214, 0.568881844, -0.436131722, -0.652065579], [0.493098601, -0.280623395, -0.710148748, 0.416884919], [-0.392275344, -0.681068786, -0.315416757, -0.531768402]],
        'sb': [2.65420269, 1.545359599, 0.470604046],
        'gb': [[1.303258145, 0.50970021, -0.301637062, -2.973231145], [0.888618298, 0.520731981, -0.589221323, 0.895891969], [-0.766393977, -1.672447162, 0.38890977, -1.724340633]],
        'sc': [[2.132500341, 1.089708172, 0.287222855], [2.025025036, 1.201172947, 0.1508533]],
        'gc': [[[-2.350687256, -3.174310083, -0.626243809], [2.85737451, -1.747065933, -2.769076412], [0.134187759, 1.865934934, -1.334561918]], [[2.588623605, 3.636922744, -1.141220083], [-2.371619804, 0.205068017, 0.222881607], [2.165162918, -2.475670501, -1.594824013]]],
        'q': [[-0.01618767, 0.851637672, -0.140028376], [0.241591519, -0.382572237, -0.049669653], [-0.269722021, 0.187458764, -0.4952419], [0.874567538, 0.245903263, 0.167547409], [-0.322107357, 0.180949042, 0.839397585]],
        'r': [[-2.112272315, 1.335165489, -0.310914426], [0.0, 1.622005231, 1.292480907], [0.0, 0.0, -0.849561146]],
        'qw': [[-0.434828519, 0.190651261, 0.88010014], [-0.643823733, -0.749142442, -0.155809507], [0.629615089, -0.634379775, 0.448494305]],
        'rw': [[-1.065040904, -1.007251446, 0.550521334, -0.482269388], [0.0, 2.027428888, 1.612295561, -0.028392121], [0.0, 0.0, -0.307389652, -0.405723908]],
        'gq': [[-0.770747794, 0.718620042, -2.129100102], [0.87615633, 0.366459166, -0.418521767], [-1.061679554, -0.264013008, -0.855675573], [0.718133542, 2.413245634, -0.529609003], [0.250373148, 0.533153897, -1.775966802]],
        'gw': [[0.282865568, -0.949173971, 0.460353837, 0.613991311], [1.995119628, 0.098430169, -0.666126283, -1.462393141], [3.004965803, 0.293560372, 0.990381249, 0.335764196]],
        'qf': [[-0.434828519, 0.190651261, 0.88010014], [-0.643823733, -0.749142442, -0.155809507], [0.629615089, -0.634379775, 0.448494305]],
        'rf': [[-1.065040904, -1.007251446, 0.550521334, -0.482269388], [0.0, 2.027428888, 1.612295561, -0.028392121], [0.0, 0.0, -0.307389652, -0.405723908]],
}

RNG = np.random.default_rng(11)
A, B, C = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 4)), RNG.normal(size=(2, 3, 3))
WQ, WR = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 3))


def _program():
    # a TF1 program over every factorisation (the names are TF's keys above)
    a, b, c = tf.constant(A), tf.constant(B), tf.constant(C)
    s, u, v = tf.svd(a)
    rec = tf.matmul(u * s, v, transpose_b=True)
    r1 = s[0] * tf.matmul(u[:, :1], v[:, :1], transpose_b=True)   # rank-1 approximation
    L1 = tf.reduce_sum((a - r1) ** 2) + tf.reduce_sum(tf.svd(b, compute_uv=False)) + \
        tf.reduce_sum(tf.abs(u) ** 3)
    g1 = tf.gradients(L1, [a, b])
    sb, ub, vb = tf.linalg.svd(b, full_matrices=True)
    gb = tf.gradients(tf.reduce_sum(ub ** 4) + tf.reduce_sum(vb[:, :3] ** 4) +
                      tf.reduce_sum(sb * [1., 2., 3.]), b)[0]
    sc = tf.svd(c, compute_uv=False)
    gc = tf.gradients(tf.reduce_sum(sc ** 2 * [[1., 2., 3.]]), c)[0]
    q, r = tf.qr(a)
    qw, rw = tf.linalg.qr(b)
    gq = tf.gradients(tf.reduce_sum(q * tf.constant(WQ)) +
                      tf.reduce_sum(r ** 2 * tf.constant(WR)), a)[0]
    gw = tf.gradients(tf.reduce_sum(qw * [[1., 2., 0.5], [3., 4., -1.], [0.3, 0.2, 0.1]]) +
                      tf.reduce_sum(tf.sin(rw)), b)[0]
    qf, rf = tf.qr(b, full_matrices=True)
    return {"s": s, "rec": rec, "abs_u": tf.abs(u), "L1": L1, "g1a": g1[0], "g1b": g1[1],
            "sb": sb, "gb": gb, "sc": sc, "gc": gc, "q": q, "r": r, "qw": qw, "rw": rw,
            "gq": gq, "gw": gw, "qf": qf, "rf": rf}


def test_svd_and_qr_programs_match_tf():
    with tf.Graph().as_default():
        fetches = _program()
        got = tf.Session().run(fetches)
    for key, want in TF.items():
        np.testing.assert_allclose(got[key], want, rtol=1e-7, atol=1e-8, err_msg=key)


def test_compiled_factorisations_equal_the_reference():
    with sg.Graph().as_default():
        a = sg.placeholder(shape=(2, 4, 3), name="a")
        s, u, v = sg.linalg.svd(a)
        q, r = sg.linalg.qr(a)
        sw, uw, vw = sg.linalg.svd(sg.linalg.matrix_transpose(a), full_matrices=True)
        loss = sg.reduce_sum(sg.matmul(u * s[:, None, :], v, transpose_b=True) ** 2) + \
            sg.reduce_sum(q * r[..., :1, :1]) + sg.reduce_sum(uw ** 4) + \
            sg.reduce_sum(sg.linalg.svd(a, compute_uv=False))
        outs = [s, u, v, q, r, sw, uw, vw, loss, sg.gradients(loss, a)[0]]
        f = sg.compile(outs, [a], wait=True)
        for k in range(2):
            x = RNG.normal(size=(2, 4, 3))
            for got, want in zip(f(x), sg.evaluate(outs, {a: x})):
                np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_refusals_are_tfs_and_say_what_to_do():
    with tf.Graph().as_default():
        a = tf.constant(A)
        u = tf.svd(tf.transpose(a), full_matrices=True)[1]
        with pytest.raises(NotImplementedError, match="abs\\(m - n\\) > 1.*full_matrices=False"):
            tf.gradients(tf.reduce_sum(u), a)
        q = tf.qr(a, full_matrices=True)[0]
        with pytest.raises(NotImplementedError, match="nrows > ncols.*full_matrices=False"):
            tf.gradients(tf.reduce_sum(q), a)
        with pytest.raises(CompileError, match="full_matrices=True.*tall"):
            sg.compile(q, [], wait=True)
        x = tf.placeholder(tf.float64, [None, 3])
        with pytest.raises(sg.ShapeError, match="known size"):
            tf.svd(x)
        np.testing.assert_allclose(tf.Session().run(q), np.linalg.qr(A, mode="complete")[0])
