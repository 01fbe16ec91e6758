"""Convolution and pooling of inputs whose height/width (or length) is known only at run
time (``tf.placeholder(tf.float32, [None, None, None, 3])``), against TensorFlow.

Each case builds one graph and runs it at several input sizes; the numbers in ``TF``
(a fingerprint of every fetched array: its shape, its sum and two weighted sums that
see every element) were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions: ``python tests/test_conv_unknown_sizes.py`` with
TensorFlow installed prints them.
"""
# flake8: noqa: E501
import sys

import numpy as np


def _rand(shape, seed, ints=False):
    rng = np.random.RandomState(seed)
    return (rng.randint(0, 3, shape) if ints else rng.randn(*shape)).astype(np.float32)


def _loss(tf, outs):
    """A scalar seeing every output element differently (so gradients are not uniform)."""
    return sum(tf.reduce_sum(tf.sin(o * (1.0 + 0.1 * k))) for k, o in enumerate(outs))


def c_conv2d(tf):
    x = tf.placeholder(tf.float32, [None, None, None, 2])
    w = tf.constant(_rand((3, 3, 2, 4), 0))
    outs = [tf.nn.conv2d(x, w, [1, s, s, 1], p) for s in (1, 2, 3) for p in ("SAME", "VALID")]
    outs.append(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1]))
    outs.append(tf.nn.conv2d(x, w, [1, 2, 1, 1], "VALID", dilations=[1, 1, 2, 1]))
    outs.append(tf.nn.conv2d(x, tf.constant(_rand((2, 4, 2, 3), 1)), [1, 2, 3, 1], "SAME"))
    gx, gw = tf.gradients(_loss(tf, outs), [x, w])
    fetch = {f"y{k}": o for k, o in enumerate(outs)}
    fetch.update(gx=gx, gw=gw)
    return fetch, [{x: _rand((2, h, w_, 2), 10 + h)} for h, w_ in ((5, 7), (6, 6), (8, 5))]


def c_pools(tf):
    x = tf.placeholder(tf.float32, [None, None, None, 3])
    outs = []
    for k, s in ((2, 2), (3, 2), (3, 1), (3, 3)):
        for p in ("SAME", "VALID"):
            outs += [tf.nn.max_pool(x, [1, k, k, 1], [1, s, s, 1], p),
                     tf.nn.avg_pool(x, [1, k, k, 1], [1, s, s, 1], p)]
    outs.append(tf.nn.max_pool(x, [1, 3, 2, 1], [1, 2, 1, 1], "SAME"))
    outs.append(tf.nn.avg_pool(x, [1, 2, 3, 1], [1, 1, 3, 1], "SAME"))
    gx, = tf.gradients(_loss(tf, outs), [x])
    fetch = {f"y{k}": o for k, o in enumerate(outs)}
    fetch.update(gx=gx)
    # small integers: windows full of ties (the gradient goes to the first maximum)
    return fetch, [{x: _rand((2, h, w, 3), h, ints=True)} for h, w in ((5, 7), (6, 6), (4, 9))]


def c_transpose(tf):
    img = tf.placeholder(tf.float32, [None, None, None, 3])
    fd, fu = tf.constant(_rand((3, 3, 3, 6), 2)), tf.constant(_rand((3, 3, 3, 6), 3))
    fu4 = tf.constant(_rand((4, 4, 3, 6), 4))
    down = tf.nn.conv2d(img, fd, [1, 2, 2, 1], "SAME")
    sh = tf.shape(img)
    up = tf.nn.conv2d_transpose(down, fu, tf.shape(img), [1, 2, 2, 1], "SAME")
    up2 = tf.nn.conv2d_transpose(down, fu, [sh[0], sh[1], sh[2], 3], [1, 2, 2, 1], "SAME")
    up3 = tf.nn.conv2d_transpose(down, fu4, tf.stack([sh[0], 2 * tf.shape(down)[1],
                                                      2 * tf.shape(down)[2], 3]),
                                 [1, 2, 2, 1], "SAME")
    cat = tf.concat([up, img], axis=3)   # a U-Net's skip connection
    g = tf.gradients(_loss(tf, [cat, up2, up3]), [img, fd, fu, fu4])
    fetch = {"up": up, "up2": up2, "up3": up3}
    fetch.update({f"g{k}": v for k, v in enumerate(g)})
    return fetch, [{img: _rand((2, h, w, 3), 20 + h)} for h, w in ((8, 6), (7, 9), (5, 5))]


def c_text(tf):
    seq = tf.placeholder(tf.float32, [None, None, 4])
    f = tf.constant(_rand((3, 4, 5), 5))
    h1 = tf.nn.relu(tf.nn.conv1d(seq, f, 1, "VALID"))
    h2 = tf.nn.conv1d(seq, f, 2, "SAME")
    pooled = tf.reduce_max(h1, axis=1)   # max over time
    g = tf.gradients(tf.reduce_sum(pooled * pooled) + _loss(tf, [h2]), [seq, f])
    return ({"h2": h2, "pooled": pooled, "gs": g[0], "gf": g[1]},
            [{seq: _rand((2, t, 4), t)} for t in (3, 6, 11)])


def c_depthwise(tf):
    img = tf.placeholder(tf.float32, [None, None, None, 3])
    dw, pw = tf.constant(_rand((3, 3, 3, 2), 6)), tf.constant(_rand((1, 1, 6, 4), 7))
    d1 = tf.nn.depthwise_conv2d(img, dw, [1, 2, 2, 1], "SAME")
    s1 = tf.nn.separable_conv2d(img, dw, pw, [1, 1, 1, 1], "VALID", rate=[2, 2])
    g = tf.gradients(_loss(tf, [d1, s1]), [img, dw, pw])
    fetch = {"d1": d1, "s1": s1}
    fetch.update({f"g{k}": v for k, v in enumerate(g)})
    return fetch, [{img: _rand((1, h, w, 3), 30 + h)} for h, w in ((8, 6), (7, 9))]


def c_fcn(tf):
    """A tiny fully convolutional classifier (global average pool) trained with Adam."""
    tf.set_random_seed(7)
    images = tf.placeholder(tf.float32, [None, None, None, 3])
    labels = tf.placeholder(tf.int64, [None])
    h = tf.layers.conv2d(images, 8, 3, padding="same", activation=tf.nn.relu,
                         kernel_initializer=tf.glorot_uniform_initializer(seed=1))
    h = tf.layers.max_pooling2d(h, 2, 2, padding="same")
    h = tf.layers.conv2d(h, 8, 3, strides=2, activation=tf.nn.relu,
                         kernel_initializer=tf.glorot_uniform_initializer(seed=2))
    h = tf.layers.average_pooling2d(h, 2, 1, padding="same")
    logits = tf.reduce_mean(tf.layers.conv2d(
        h, 5, 1, kernel_initializer=tf.glorot_uniform_initializer(seed=3)), axis=[1, 2])
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                         logits=logits))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    with tf.control_dependencies([train]):
        step_loss = tf.identity(loss)
    feeds = [{images: _rand((3, h_, w_, 3), 40 + h_), labels: np.arange(3) % 5}
             for h_, w_ in ((16, 16), (15, 21), (24, 13), (17, 17))]
    return {"loss": step_loss}, feeds


def c_layers(tf):
    """The layer wrappers; a VALID transposed layer whose kernel is shorter than its
    stride is n * s + max(k - s, 0) long (the zeros between windows kept), as TF's."""
    x = tf.placeholder(tf.float32, [None, None, None, 3])
    seq = tf.placeholder(tf.float32, [None, None, 3])
    init = lambda shape, seed: tf.constant_initializer(_rand(shape, seed))  # noqa: E731
    outs = [tf.layers.conv2d_transpose(x, 2, k, strides=s, padding=p,
                                       kernel_initializer=init((k, k, 2, 3), 50 + k))
            for p in ("same", "valid") for k, s in ((3, 2), (1, 2), (4, 3))]
    outs.append(tf.keras.layers.Conv2DTranspose(2, 1, strides=2, padding="valid",
                                                kernel_initializer=init((1, 1, 2, 3), 60))(x))
    outs.append(tf.keras.layers.Conv2D(2, 3, strides=2, padding="same",
                                       kernel_initializer=init((3, 3, 3, 2), 61))(x))
    outs.append(tf.keras.layers.GlobalAveragePooling2D()(tf.keras.layers.MaxPool2D(2)(x)))
    outs.append(tf.layers.conv1d(seq, 4, 3, strides=2, padding="same",
                                 kernel_initializer=init((3, 3, 4), 62)))
    outs.append(tf.nn.conv1d_transpose(seq, tf.constant(_rand((3, 2, 3), 63)),
                                       tf.stack([tf.shape(seq)[0], 2 * tf.shape(seq)[1], 2]),
                                       2, "SAME"))
    g = tf.gradients(_loss(tf, outs), [x, seq])
    fetch = {f"y{k}": o for k, o in enumerate(outs)}
    fetch.update(gx=g[0], gs=g[1])
    return fetch, [{x: _rand((2, h, w, 3), 70 + h), seq: _rand((2, t, 3), t)}
                   for h, w, t in ((5, 4, 6), (6, 7, 3))]


def c_volumes(tf):
    """conv3d and the 3-D pools with depth (and height) known at run time; ties."""
    x = tf.placeholder(tf.float32, [None, None, None, None, 2])
    xm = tf.placeholder(tf.float32, [None, 4, None, 5, 2])
    f = tf.constant(_rand((3, 2, 3, 2, 3), 80))
    outs = []
    for v, s, p in ((x, 1, "SAME"), (x, 2, "VALID"), (xm, 2, "SAME"), (x, 2, "SAME")):
        outs += [tf.nn.conv3d(v, f, [1, s, s, 1, 1], p),
                 tf.nn.max_pool3d(v, [1, 3, 2, 2, 1], [1, s, 1, s, 1], p),
                 tf.nn.avg_pool3d(v, [1, 2, 3, 2, 1], [1, s, s, 2, 1], p)]
    g = tf.gradients(_loss(tf, outs), [x, xm, f])
    fetch = {f"y{k}": o for k, o in enumerate(outs)}
    fetch.update({f"g{k}": v for k, v in enumerate(g)})
    return fetch, [{x: _rand((1, d, h, 5, 2), d, ints=True), xm: _rand((1, 4, h, 5, 2), h)}
                   for d, h in ((4, 5), (5, 3))]


def c_argmax(tf):
    """max_pool_with_argmax: the flat index of each window's first maximum (ties)."""
    x = tf.placeholder(tf.float32, [None, None, None, 2])
    outs = []
    for k, s, p in ((2, 2, "SAME"), (3, 2, "VALID")):
        for b in (False, True):
            outs += list(tf.nn.max_pool_with_argmax(x, [1, k, k, 1], [1, s, s, 1], p,
                                                    include_batch_in_index=b))
    g, = tf.gradients(_loss(tf, outs[::2]), [x])
    fetch = {f"y{k}": tf.cast(o, tf.float32) for k, o in enumerate(outs)}
    fetch.update(g=g)
    return fetch, [{x: _rand((2, h, w, 2), h, ints=True)} for h, w in ((5, 6), (4, 7))]


CASES = {name[2:]: fn for name, fn in list(globals().items()) if name.startswith("c_")}


def fingerprint(a):
    """Shape, sum and two weighted sums of ``a`` (weights differ at every position)."""
    a = np.asarray(a, np.float64)
    k = np.arange(a.size, dtype=np.float64).reshape(a.shape)
    return [list(a.shape), float(a.sum()), float((a * np.cos(0.7 * k)).sum()),
            float((a * np.sin(1.3 * k + 0.5)).sum())]


def run(tf, build):
    """Fingerprints of the case's fetches at each feed, run in order in one session."""
    with tf.Graph().as_default():
        fetch, feeds = build(tf)
        shapes = {k: [d if isinstance(d, int) else None for d in v.shape.as_list()]
                  for k, v in fetch.items()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            runs = [{k: fingerprint(v) for k, v in sess.run(fetch, feed).items()}
                    for feed in feeds]
    return {"static": shapes, "runs": runs}


TF = {'argmax': {'runs': [{'g': [[2, 5, 6, 2], -52.38438, -14.92615, -3.668417],
                      'y0': [[2, 3, 3, 2], 63.0, 2.85532, 5.526649],
                      'y1': [[2, 3, 3, 2], 1150.0, -56.83464, 50.59999],
                      'y2': [[2, 3, 3, 2], 63.0, 2.85532, 5.526649],
                      'y3': [[2, 3, 3, 2], 2230.0, -54.02357, 79.49471],
                      'y4': [[2, 2, 2, 2], 32.0, -1.885474, 2.009969],
                      'y5': [[2, 2, 2, 2], 320.0, -160.7822, -13.5051],
                      'y6': [[2, 2, 2, 2], 32.0, -1.885474, 2.009969],
                      'y7': [[2, 2, 2, 2], 800.0, -172.1986, -35.84991]},
                     {'g': [[2, 4, 7, 2], -42.23784, -7.429774, -5.302926],
                      'y0': [[2, 2, 4, 2], 56.0, 2.947178, -0.5385327],
                      'y1': [[2, 2, 4, 2], 714.0, -59.83199, 35.71688],
                      'y2': [[2, 2, 4, 2], 56.0, 2.947178, -0.5385327],
                      'y3': [[2, 2, 4, 2], 1610.0, 16.15843, 63.12608],
                      'y4': [[2, 1, 3, 2], 24.0, 3.860473, 3.231538],
                      'y5': [[2, 1, 3, 2], 104.0, -6.325887, 18.99349],
                      'y6': [[2, 1, 3, 2], 24.0, 3.860473, 3.231538],
                      'y7': [[2, 1, 3, 2], 440.0, 126.8954, 73.10159]}],
            'static': {'g': [None, None, None, 2],
                       'y0': [None, None, None, 2],
                       'y1': [None, None, None, 2],
                       'y2': [None, None, None, 2],
                       'y3': [None, None, None, 2],
                       'y4': [None, None, None, 2],
                       'y5': [None, None, None, 2],
                       'y6': [None, None, None, 2],
                       'y7': [None, None, None, 2]}},
 'conv2d': {'runs': [{'gw': [[3, 3, 2, 4], 53.36933, 21.75931, -23.85334],
                      'gx': [[2, 5, 7, 2], 34.60917, 199.2947, 48.9657],
                      'y0': [[2, 5, 7, 4], -16.95961, -36.51018, 21.25766],
                      'y1': [[2, 3, 5, 4], -34.58836, 15.28995, 6.985109],
                      'y2': [[2, 3, 4, 4], 4.939229, 4.580666, -26.06159],
                      'y3': [[2, 2, 3, 4], -14.94703, -21.63, -17.39012],
                      'y4': [[2, 2, 3, 4], -0.7775596, -4.797211, 22.61958],
                      'y5': [[2, 1, 2, 4], -16.84304, 21.10543, 20.60254],
                      'y6': [[2, 5, 7, 4], -81.04802, 7.400715, 47.83285],
                      'y7': [[2, 2, 3, 4], -2.806686, 17.48936, 3.246784],
                      'y8': [[2, 3, 3, 3], -5.325623, -52.35235, -9.107338]},
                     {'gw': [[3, 3, 2, 4], -40.18741, -11.5163, -40.16091],
                      'gx': [[2, 6, 6, 2], -134.534, -3.026885, 151.0385],
                      'y0': [[2, 6, 6, 4], -58.85529, -34.22542, -17.16846],
                      'y1': [[2, 4, 4, 4], -78.92637, -18.87394, -17.84307],
                      'y2': [[2, 3, 3, 4], -24.87059, -32.67154, -26.31831],
                      'y3': [[2, 2, 2, 4], -38.53485, 21.67153, -3.736467],
                      'y4': [[2, 2, 2, 4], 8.714112, -20.60544, -28.0467],
                      'y5': [[2, 2, 2, 4], 8.714112, -20.60544, -28.0467],
                      'y6': [[2, 6, 6, 4], -117.6167, -16.08414, 32.4572],
                      'y7': [[2, 2, 2, 4], -36.08865, -17.84144, -16.14782],
                      'y8': [[2, 3, 2, 3], 2.94004, -12.2955, -0.8414084]},
                     {'gw': [[3, 3, 2, 4], 87.28762, -7.605303, 78.63619],
                      'gx': [[2, 8, 5, 2], 71.30617, 70.38522, -152.4136],
                      'y0': [[2, 8, 5, 4], 5.515835, -30.11475, -66.18944],
                      'y1': [[2, 6, 3, 4], 56.98227, 43.87208, 4.188676],
                      'y2': [[2, 4, 3, 4], -3.286059, -46.4317, -20.47095],
                      'y3': [[2, 3, 2, 4], 53.30355, 18.71028, -27.56739],
                      'y4': [[2, 3, 2, 4], -4.863574, 19.78218, -13.71786],
                      'y5': [[2, 2, 1, 4], 1.31374, -8.768192, -5.292923],
                      'y6': [[2, 8, 5, 4], 32.76619, 6.626001, -70.24963],
                      'y7': [[2, 3, 1, 4], 33.70382, 15.24945, 14.92038],
                      'y8': [[2, 4, 2, 3], -12.92343, -10.61949, 5.218769]}],
            'static': {'gw': [3, 3, 2, 4],
                       'gx': [None, None, None, 2],
                       'y0': [None, None, None, 4],
                       'y1': [None, None, None, 4],
                       'y2': [None, None, None, 4],
                       'y3': [None, None, None, 4],
                       'y4': [None, None, None, 4],
                       'y5': [None, None, None, 4],
                       'y6': [None, None, None, 4],
                       'y7': [None, None, None, 4],
                       'y8': [None, None, None, 3]}},
 'depthwise': {'runs': [{'d1': [[1, 4, 3, 6], -21.58825, -10.55797, 14.32719],
                         'g0': [[1, 8, 6, 3], -30.94569, -5.865882, -17.57493],
                         'g1': [[3, 3, 3, 2], 19.5434, -38.53408, 17.5499],
                         'g2': [[1, 1, 6, 4], -7.644749, 74.5288, 8.822999],
                         's1': [[1, 4, 2, 4], -50.34953, -6.136468, -40.17731]},
                        {'d1': [[1, 4, 5, 6], 29.47222, 0.05632971, 4.093174],
                         'g0': [[1, 7, 9, 3], 24.68367, 15.5503, -25.08],
                         'g1': [[3, 3, 3, 2], -36.27778, -35.73308, -21.58055],
                         'g2': [[1, 1, 6, 4], -35.99331, -9.608092, -16.8819],
                         's1': [[1, 3, 5, 4], 58.90766, -15.71081, -49.09966]}],
               'static': {'d1': [None, None, None, 6],
                          'g0': [None, None, None, 3],
                          'g1': [3, 3, 3, 2],
                          'g2': [1, 1, 6, 4],
                          's1': [None, None, None, 4]}},
 'fcn': {'runs': [{'loss': [[], 1.628531, 1.628531, 0.7807593]},
                  {'loss': [[], 1.45931, 1.45931, 0.6996303]},
                  {'loss': [[], 1.384192, 1.384192, 0.663617]},
                  {'loss': [[], 1.229544, 1.229544, 0.5894748]}],
         'static': {'loss': []}},
 'layers': {'runs': [{'gs': [[2, 6, 3], 0.9293497, -5.167288, 11.76014],
                      'gx': [[2, 5, 4, 3], 205.6449, 75.20528, -105.676],
                      'y0': [[2, 10, 8, 2], 18.47319, 11.66477, 102.5748],
                      'y1': [[2, 10, 8, 2], -12.6872, -1.316501, -15.52319],
                      'y10': [[2, 12, 2], -27.1919, -19.81468, 16.9634],
                      'y2': [[2, 15, 12, 2], -79.76845, -38.60551, 20.00141],
                      'y3': [[2, 11, 9, 2], 21.60671, -27.65161, 32.16508],
                      'y4': [[2, 10, 8, 2], -12.6872, -1.316501, -15.52319],
                      'y5': [[2, 16, 13, 2], -92.08532, 7.60615, 34.11737],
                      'y6': [[2, 10, 8, 2], -22.52118, 15.34301, -27.65284],
                      'y7': [[2, 3, 2, 2], -7.956492, 11.70838, 4.62591],
                      'y8': [[2, 3], 8.00295, -0.7079061, 0.7479352],
                      'y9': [[2, 3, 4], 6.736804, 13.01155, 7.044464]},
                     {'gs': [[2, 3, 3], -36.91549, 9.945102, 12.23626],
                      'gx': [[2, 6, 7, 3], -17.04154, 179.9701, -2.989397],
                      'y0': [[2, 12, 14, 2], 67.3718, -40.69447, -32.0166],
                      'y1': [[2, 12, 14, 2], -13.11095, -20.60366, -7.006996],
                      'y10': [[2, 6, 2], 5.06464, -24.55803, 3.017517],
                      'y2': [[2, 18, 21, 2], -124.4189, -6.572544, -31.84066],
                      'y3': [[2, 13, 15, 2], 40.55153, -26.90077, -66.22465],
                      'y4': [[2, 12, 14, 2], -13.11095, -20.60366, -7.006996],
                      'y5': [[2, 19, 22, 2], -135.8292, -19.19654, 20.40943],
                      'y6': [[2, 12, 14, 2], -41.31853, -19.38827, 19.7902],
                      'y7': [[2, 3, 4, 2], 2.234548, 4.482914, -2.992956],
                      'y8': [[2, 3], 5.833317, -0.3035229, 0.9387271],
                      'y9': [[2, 2, 4], 2.701652, -6.107378, 0.5331119]}],
            'static': {'gs': [None, None, 3],
                       'gx': [None, None, None, 3],
                       'y0': [None, None, None, 2],
                       'y1': [None, None, None, 2],
                       'y10': [None, None, 2],
                       'y2': [None, None, None, 2],
                       'y3': [None, None, None, 2],
                       'y4': [None, None, None, 2],
                       'y5': [None, None, None, 2],
                       'y6': [None, None, None, 2],
                       'y7': [None, None, None, 2],
                       'y8': [None, 3],
                       'y9': [None, None, 4]}},
 'pools': {'runs': [{'gx': [[2, 5, 7, 3], -876.045, -144.5661, -38.72433],
                     'y0': [[2, 3, 4, 3], 112.0, -0.3858999, 2.278165],
                     'y1': [[2, 3, 4, 3], 72.0, 0.8468742, 0.7081083],
                     'y10': [[2, 3, 5, 3], 178.0, 2.365609, 2.34848],
                     'y11': [[2, 3, 5, 3], 94.44445, 1.285385, 2.768792],
                     'y12': [[2, 2, 3, 3], 69.0, -1.823729, 4.305557],
                     'y13': [[2, 2, 3, 3], 36.05556, -1.113998, 2.571437],
                     'y14': [[2, 1, 2, 3], 24.0, 3.860473, 3.231538],
                     'y15': [[2, 1, 2, 3], 12.22222, 2.580975, 1.053828],
                     'y16': [[2, 3, 7, 3], 228.0, -0.5066844, 0.7780362],
                     'y17': [[2, 5, 3, 3], 91.0, -4.401626, 1.796618],
                     'y2': [[2, 2, 3, 3], 64.0, -1.927625, 0.7605453],
                     'y3': [[2, 2, 3, 3], 36.5, 0.2409073, 0.6985197],
                     'y4': [[2, 3, 4, 3], 137.0, 0.8111373, -1.804438],
                     'y5': [[2, 3, 4, 3], 72.08333, -1.511394, -1.041006],
                     'y6': [[2, 2, 3, 3], 71.0, -0.5891875, 4.099556],
                     'y7': [[2, 2, 3, 3], 37.33333, -0.7247096, 2.461259],
                     'y8': [[2, 5, 7, 3], 406.0, 2.18873, 3.735823],
                     'y9': [[2, 5, 7, 3], 213.6944, 1.666059, 1.655913]},
                    {'gx': [[2, 6, 6, 3], -856.9777, -23.07303, -143.6749],
                     'y0': [[2, 3, 3, 3], 98.0, -0.3352893, 2.79482],
                     'y1': [[2, 3, 3, 3], 54.25, -2.655858, 2.265446],
                     'y10': [[2, 4, 4, 3], 192.0, -1.241306, 0.7601831],
                     'y11': [[2, 4, 4, 3], 94.88889, -0.152491, 0.5227485],
                     'y12': [[2, 2, 2, 3], 48.0, -0.9708221, 0.09084547],
                     'y13': [[2, 2, 2, 3], 24.11111, -0.2369526, 0.6882559],
                     'y14': [[2, 2, 2, 3], 48.0, -0.9708221, 0.09084547],
                     'y15': [[2, 2, 2, 3], 24.11111, -0.2369526, 0.6882559],
                     'y16': [[2, 3, 6, 3], 200.0, -2.974839, -4.009518],
                     'y17': [[2, 6, 2, 3], 73.33333, 2.121498, -2.493102],
                     'y2': [[2, 3, 3, 3], 98.0, -0.3352893, 2.79482],
                     'y3': [[2, 3, 3, 3], 54.25, -2.655858, 2.265446],
                     'y4': [[2, 3, 3, 3], 106.0, -0.9867885, 2.445464],
                     'y5': [[2, 3, 3, 3], 53.91667, -3.351138, 1.459113],
                     'y6': [[2, 2, 2, 3], 48.0, -0.9708221, 0.09084547],
                     'y7': [[2, 2, 2, 3], 24.33333, -1.049769, 0.8806829],
                     'y8': [[2, 6, 6, 3], 418.0, -2.157448, 2.101885],
                     'y9': [[2, 6, 6, 3], 212.8056, -1.98927, 1.214981]},
                    {'gx': [[2, 4, 9, 3], -913.7456, -27.41173, -15.23497],
                     'y0': [[2, 2, 5, 3], 108.0, 0.1190721, 3.377182],
                     'y1': [[2, 2, 5, 3], 63.25, -1.256664, -2.327191],
                     'y10': [[2, 2, 7, 3], 168.0, 3.758456, 2.653517],
                     'y11': [[2, 2, 7, 3], 86.77778, 1.923046, 2.21999],
                     'y12': [[2, 2, 3, 3], 71.0, 0.06631644, 2.623915],
                     'y13': [[2, 2, 3, 3], 37.33333, -0.250752, 2.996446],
                     'y14': [[2, 1, 3, 3], 36.0, 0.09267616, 2.140962],
                     'y15': [[2, 1, 3, 3], 18.77778, 0.957374, 1.598751],
                     'y16': [[2, 2, 9, 3], 206.0, 0.04531824, 1.872282],
                     'y17': [[2, 4, 3, 3], 74.66667, -2.228639, -3.810503],
                     'y2': [[2, 2, 4, 3], 88.0, 4.995699, 0.4973248],
                     'y3': [[2, 2, 4, 3], 48.75, 4.218873, 1.721303],
                     'y4': [[2, 2, 5, 3], 119.0, -1.197451, 3.851523],
                     'y5': [[2, 2, 5, 3], 62.72222, -0.7316625, -1.416526],
                     'y6': [[2, 1, 4, 3], 48.0, -0.9708221, 0.09084547],
                     'y7': [[2, 1, 4, 3], 24.77778, -0.7918917, 0.1355947],
                     'y8': [[2, 4, 9, 3], 423.0, 0.7106707, 0.9607861],
                     'y9': [[2, 4, 9, 3], 225.1944, 0.5803696, 0.9988302]}],
           'static': {'gx': [None, None, None, 3],
                      'y0': [None, None, None, 3],
                      'y1': [None, None, None, 3],
                      'y10': [None, None, None, 3],
                      'y11': [None, None, None, 3],
                      'y12': [None, None, None, 3],
                      'y13': [None, None, None, 3],
                      'y14': [None, None, None, 3],
                      'y15': [None, None, None, 3],
                      'y16': [None, None, None, 3],
                      'y17': [None, None, None, 3],
                      'y2': [None, None, None, 3],
                      'y3': [None, None, None, 3],
                      'y4': [None, None, None, 3],
                      'y5': [None, None, None, 3],
                      'y6': [None, None, None, 3],
                      'y7': [None, None, None, 3],
                      'y8': [None, None, None, 3],
                      'y9': [None, None, None, 3]}},
 'text': {'runs': [{'gf': [[3, 4, 5], -35.7291, -66.36216, -2.297908],
                    'gs': [[2, 3, 4], 85.77815, 7.89047, -49.09425],
                    'h2': [[2, 2, 5], -25.84403, 2.484883, -4.767733],
                    'pooled': [[2, 5], 14.6769, -5.901106, 0.2966224]},
                   {'gf': [[3, 4, 5], 141.1138, -75.16458, -8.713342],
                    'gs': [[2, 6, 4], 209.8303, 51.89822, 149.8834],
                    'h2': [[2, 3, 5], 6.326235, 6.004633, -5.767641],
                    'pooled': [[2, 5], 34.90822, 11.03129, -0.1851931]},
                   {'gf': [[3, 4, 5], 156.3791, -19.59734, -4.629793],
                    'gs': [[2, 11, 4], 232.0801, 11.56766, -32.83788],
                    'h2': [[2, 6, 5], 23.69054, -7.714541, -43.93144],
                    'pooled': [[2, 5], 44.74952, 7.699554, -1.132957]}],
          'static': {'gf': [3, 4, 5],
                     'gs': [None, None, 4],
                     'h2': [None, None, 5],
                     'pooled': [None, 5]}},
 'transpose': {'runs': [{'g0': [[2, 8, 6, 3], 207.5821, 68.8373, -80.70981],
                         'g1': [[3, 3, 3, 6], 491.3969, -31.64073, 304.7302],
                         'g2': [[3, 3, 3, 6], 256.6264, 355.9702, 169.253],
                         'g3': [[4, 4, 3, 6], -175.16, -136.6258, 200.0082],
                         'up': [[2, 8, 6, 3], -669.1888, 160.1725, 141.0362],
                         'up2': [[2, 8, 6, 3], -669.1888, 160.1725, 141.0362],
                         'up3': [[2, 8, 6, 3], 520.1699, -456.3205, -557.2974]},
                        {'g0': [[2, 7, 9, 3], 255.589, -342.4896, 42.75324],
                         'g1': [[3, 3, 3, 6], -136.646, -14.71821, -517.8605],
                         'g2': [[3, 3, 3, 6], -275.2054, 155.3432, 438.5337],
                         'g3': [[4, 4, 3, 6], -119.2125, 342.6927, 66.63611],
                         'up': [[2, 7, 9, 3], -349.2204, -293.5024, 52.82362],
                         'up2': [[2, 7, 9, 3], -349.2204, -293.5024, 52.82362],
                         'up3': [[2, 8, 10, 3], 114.9606, -73.45615, -880.23]},
                        {'g0': [[2, 5, 5, 3], 10.06808, -356.5187, -27.80651],
                         'g1': [[3, 3, 3, 6], 224.1915, -155.5874, -150.9292],
                         'g2': [[3, 3, 3, 6], -161.5985, 41.42437, -18.16745],
                         'g3': [[4, 4, 3, 6], 199.8289, -42.14099, -134.9361],
                         'up': [[2, 5, 5, 3], 50.16318, -81.36327, 232.5493],
                         'up2': [[2, 5, 5, 3], 50.16318, -81.36327, 232.5493],
                         'up3': [[2, 6, 6, 3], 85.85288, -613.2465, 646.6938]}],
               'static': {'g0': [None, None, None, 3],
                          'g1': [3, 3, 3, 6],
                          'g2': [3, 3, 3, 6],
                          'g3': [4, 4, 3, 6],
                          'up': [None, None, None, 3],
                          'up2': [None, None, None, 3],
                          'up3': [None, None, None, 3]}},
 'volumes': {'runs': [{'g0': [[1, 4, 5, 5, 2], -169.5783, -53.17882, -67.05644],
                       'g1': [[1, 4, 5, 5, 2], -21.12309, 22.2786, -45.33435],
                       'g2': [[3, 2, 3, 2, 3], 193.2543, -11.80386, 79.09361],
                       'y0': [[1, 4, 5, 5, 3], 981.6765, 30.25894, -77.80698],
                       'y1': [[1, 4, 5, 5, 2], 385.0, 6.400282, 2.436133],
                       'y10': [[1, 2, 5, 3, 2], 110.0, 1.829617, 1.74816],
                       'y11': [[1, 2, 3, 3, 2], 37.66667, 0.3893406, 4.549911],
                       'y2': [[1, 4, 5, 3, 2], 117.625, 1.351601, 3.112439],
                       'y3': [[1, 1, 2, 3, 3], 61.50089, 4.60755, 5.1717],
                       'y4': [[1, 1, 4, 2, 2], 32.0, -1.885474, 2.009969],
                       'y5': [[1, 2, 2, 2, 2], 16.16667, -0.9182541, 0.1809551],
                       'y6': [[1, 2, 3, 5, 3], 33.31695, 28.99851, -22.86136],
                       'y7': [[1, 2, 5, 3, 2], 78.90427, -1.581569, 1.120831],
                       'y8': [[1, 2, 3, 3, 2], 0.7166894, -0.7857297, 0.8273041],
                       'y9': [[1, 2, 3, 5, 3], 261.7436, 38.65726, 62.17868]},
                      {'g0': [[1, 5, 3, 5, 2], -54.10924, -73.10711, 83.77757],
                       'g1': [[1, 4, 3, 5, 2], 18.86001, 22.13431, -58.51065],
                       'g2': [[3, 2, 3, 2, 3], 575.5241, 94.19815, 27.00032],
                       'y0': [[1, 5, 3, 5, 3], 635.6774, 17.73673, 58.48685],
                       'y1': [[1, 5, 3, 5, 2], 286.0, -0.8990631, 0.4201488],
                       'y10': [[1, 3, 3, 3, 2], 97.0, -2.897822, 2.477638],
                       'y11': [[1, 3, 2, 3, 2], 32.5, 0.7687026, 2.422558],
                       'y2': [[1, 5, 3, 3, 2], 80.75, 1.492137, 4.661409],
                       'y3': [[1, 2, 1, 3, 3], 39.75487, 7.103017, 15.90017],
                       'y4': [[1, 2, 2, 2, 2], 32.0, -1.885474, 2.009969],
                       'y5': [[1, 2, 1, 2, 2], 8.5, -0.5765496, 1.376487],
                       'y6': [[1, 2, 2, 5, 3], 7.213975, -47.35435, -48.84966],
                       'y7': [[1, 2, 3, 3, 2], 39.34693, -0.1121291, 2.456315],
                       'y8': [[1, 2, 2, 3, 2], -2.17024, 0.4785672, -1.083223],
                       'y9': [[1, 3, 2, 5, 3], 247.225, 32.5784, 19.74171]}],
             'static': {'g0': [None, None, None, None, 2],
                        'g1': [None, 4, None, 5, 2],
                        'g2': [3, 2, 3, 2, 3],
                        'y0': [None, None, None, None, 3],
                        'y1': [None, None, None, None, 2],
                        'y10': [None, None, None, None, 2],
                        'y11': [None, None, None, None, 2],
                        'y2': [None, None, None, None, 2],
                        'y3': [None, None, None, None, 3],
                        'y4': [None, None, None, None, 2],
                        'y5': [None, None, None, None, 2],
                        'y6': [None, 2, None, 5, 3],
                        'y7': [None, 2, None, 3, 2],
                        'y8': [None, 2, None, 3, 2],
                        'y9': [None, None, None, None, 3]}}}

if __name__ == "__main__":
    if sys.argv[1:] == ["symgrad"]:
        import symgrad.compat.v1 as tf
    else:
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
    print({name: run(tf, build) for name, build in CASES.items()})


import pytest  # noqa: E402

import symgrad as sg  # noqa: E402
import symgrad.compat.v1 as sgtf  # noqa: E402
from symgrad.tracing import conv  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run(sgtf, CASES[case])
    assert got["static"] == TF[case]["static"], "static shapes differ from TF's"
    for k, (have, want) in enumerate(zip(got["runs"], TF[case]["runs"])):
        for key, w in want.items():
            h = have[key]
            assert h[0] == w[0], f"{case} run {k} {key}: shape {h[0]}, TF's {w[0]}"
            np.testing.assert_allclose(h[1:], w[1:], rtol=1e-4,
                                       atol=1e-4 * max(1.0, *map(abs, w[1:])),
                                       err_msg=f"{case} run {k} {key}")


def test_valid_window_too_small_is_refused_when_values_arrive():
    # TF: InvalidArgumentError "Computed output size would be negative"; numpy would
    # read the negative bound from the end
    x = sgtf.placeholder(sgtf.float32, [None, None, None, 3])
    y = sgtf.nn.conv2d(x, np.ones((3, 3, 3, 2), np.float32), [1, 1, 1, 1], "VALID")
    with sgtf.Session() as sess:
        assert sess.run(y, {x: np.ones((1, 3, 5, 3))}).shape == (1, 1, 3, 2)
        assert sess.run(y, {x: np.ones((1, 2, 5, 3))}).shape == (1, 0, 3, 2)   # as TF
        with pytest.raises(sgtf.errors.InvalidArgumentError, match="too small"):
            sess.run(y, {x: np.ones((1, 1, 5, 3))})


def _numpy_conv(x, w, stride):
    """SAME cross-correlation by loops (TF's padding: the smaller half before)."""
    n, h, wd, _ = x.shape
    kh, kw, _, o = w.shape
    oh, ow = -(-h // stride), -(-wd // stride)
    ph = max((oh - 1) * stride + kh - h, 0)
    pw = max((ow - 1) * stride + kw - wd, 0)
    xp = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    out = np.zeros((n, oh, ow, o))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j] = np.einsum("nhwc,hwco->no", patch, w)
    return out


def test_compiled_and_evaluated_agree_with_numpy_at_every_size():
    x = sg.placeholder(shape=(None, None, None, 2), name="x")
    w = np.random.RandomState(0).randn(3, 3, 2, 4)
    same, valid = conv.conv2d(x, w, 1, "SAME"), conv.conv2d(x, w, 1, "VALID")
    strided = conv.conv2d(x, w, 2, "SAME")
    f = sg.compile([same, valid], [x], wait=True)   # one kernel for every size
    for h, wd in ((5, 7), (6, 4)):
        v = np.random.RandomState(h).randn(2, h, wd, 2)
        got, again = f(v), sg.evaluate([same, valid, strided], {x: v})
        for have in (got[0], again[0]):
            np.testing.assert_allclose(have, _numpy_conv(v, w, 1), rtol=1e-10, atol=1e-10)
        for have in (got[1], again[1]):
            np.testing.assert_allclose(have, _numpy_conv(v, w, 1)[:, 1:-1, 1:-1], rtol=1e-10,
                                       atol=1e-10)
        np.testing.assert_allclose(again[2], _numpy_conv(v, w, 2), rtol=1e-10, atol=1e-10)
    with pytest.raises(sg.ShapeError, match="too small"):   # (not numba's MemoryError)
        f(np.ones((1, 1, 4, 2)))
    with pytest.raises(sg.ShapeError, match="too small"):
        sg.evaluate(valid, {x: np.ones((1, 1, 4, 2))})
