"""tf.contrib.slim: TF-Slim programs against the numbers TF 2.21 printed for them.

The oracle is the ``tf-slim`` package (``import tf_slim as slim``, TF-Slim for TF 2.x
graph mode) running the same program text in TF 2.21 with ``tf.disable_v2_behavior()``.
TF 2.21's legacy Keras lacks the layer class slim.batch_norm uses on rank-4 inputs with
the default ``updates_collections``, so the oracle programs pass
``updates_collections=[tf.GraphKeys.UPDATE_OPS]`` (the same collection; TF then takes its
fused kernel, as it does by default).  Every literal below comes from TF 2.21.
"""
import numpy as np
import pytest

from .tf1_programs import run_tf1

NAMES = """
import tensorflow as tf
slim = tf.contrib.slim
x = tf.placeholder(tf.float32, [None, 8, 8, 3], name="x")
reg = slim.l2_regularizer(0.1)
with slim.arg_scope([slim.conv2d, slim.fully_connected], weights_regularizer=reg):
    with slim.arg_scope([slim.conv2d], padding="VALID"):
        net = slim.conv2d(x, 4, [3, 3])
        net = slim.conv2d(net, 4, [3, 3], padding="SAME")
        net = slim.conv2d(net, 4, 3, scope="conv3")
        net2 = slim.conv2d(net, 4, 3, scope="conv3", reuse=True)
    net = slim.max_pool2d(net, [2, 2])
    net = slim.conv2d(net, 5, 1, normalizer_fn=slim.batch_norm,
                      normalizer_params={"is_training": True, "scale": True,
                                         "updates_collections": [tf.GraphKeys.UPDATE_OPS]})
    net = slim.flatten(net)
    net = slim.dropout(net, 0.5, is_training=False)
    net = slim.fully_connected(net, 6, outputs_collections="ends")
    net = slim.repeat(net, 2, slim.fully_connected, 3, scope="rep")
    net = slim.stack(net, slim.fully_connected, [4, 2], scope="st")
    net = slim.fully_connected(net, 2, activation_fn=None)
collections = {k: [v.name for v in tf.get_collection(k)] for k in (
    "variables", "trainable_variables", "model_variables", "regularization_losses")}
ends = slim.utils.convert_collection_to_dict("ends")
conv3 = [v.name for v in slim.get_variables("conv3")]
weights = [v.name for v in slim.get_variables_by_name("weights")]
restore = [v.name for v in slim.get_variables_to_restore(exclude=["rep", "Conv_2"])]
"""

# TF 2.21 (tf_slim): tf.global_variables() of NAMES
TF_VARIABLES = [
    'Conv/weights:0', 'Conv/biases:0', 'Conv_1/weights:0', 'Conv_1/biases:0',
    'conv3/weights:0', 'conv3/biases:0', 'Conv_2/weights:0', 'Conv_2/BatchNorm/beta:0',
    'Conv_2/BatchNorm/gamma:0', 'Conv_2/BatchNorm/moving_mean:0',
    'Conv_2/BatchNorm/moving_variance:0', 'fully_connected/weights:0',
    'fully_connected/biases:0', 'rep/rep_1/weights:0', 'rep/rep_1/biases:0',
    'rep/rep_2/weights:0', 'rep/rep_2/biases:0', 'st/st_1/weights:0', 'st/st_1/biases:0',
    'st/st_2/weights:0', 'st/st_2/biases:0', 'fully_connected_1/weights:0',
    'fully_connected_1/biases:0']
TF_REGULARIZATION = [
    'Conv/kernel/Regularizer/l2_regularizer:0', 'Conv_1/kernel/Regularizer/l2_regularizer:0',
    'conv3/kernel/Regularizer/l2_regularizer:0', 'Conv_2/kernel/Regularizer/l2_regularizer:0',
    'fully_connected/kernel/Regularizer/l2_regularizer:0',
    'rep/rep_1/kernel/Regularizer/l2_regularizer:0',
    'rep/rep_2/kernel/Regularizer/l2_regularizer:0',
    'st/st_1/kernel/Regularizer/l2_regularizer:0', 'st/st_2/kernel/Regularizer/l2_regularizer:0',
    'fully_connected_1/kernel/Regularizer/l2_regularizer:0']


def test_variable_names_collections_and_lookups_are_tfs():
    ns = run_tf1(NAMES)
    c = ns["collections"]
    assert c["variables"] == TF_VARIABLES
    assert c["model_variables"] == TF_VARIABLES
    assert c["trainable_variables"] == [n for n in TF_VARIABLES if "moving" not in n]
    assert c["regularization_losses"] == TF_REGULARIZATION   # (not again for the reuse)
    assert ns["net2"].name.startswith("conv3_1/")
    assert ns["net"].name == "fully_connected_1/BiasAdd:0"
    assert ns["net"].shape.as_list() == [None, 2]
    assert list(ns["ends"]) == ["fully_connected"]
    assert ns["ends"]["fully_connected"].shape.as_list() == [None, 6]
    assert ns["conv3"] == ['conv3/weights:0', 'conv3/biases:0']
    assert ns["weights"] == [n for n in TF_VARIABLES if n.endswith("/weights:0")]
    assert ns["restore"] == [n for n in TF_VARIABLES if not n.startswith(("rep/", "Conv_2/"))]


TRAIN = """
import numpy as np
import tensorflow as tf
slim = tf.contrib.slim
rs = np.random.RandomState(0)
X = rs.randn(4, 6, 6, 2).astype(np.float32)
Y = rs.randint(0, 3, size=4)
x = tf.placeholder(tf.float32, [None, 6, 6, 2])
y = tf.placeholder(tf.int64, [None])
training = tf.placeholder_with_default(True, [])
BN = dict(is_training=training, scale=True, decay=0.9,
          updates_collections=[tf.GraphKeys.UPDATE_OPS])
with slim.arg_scope([slim.conv2d, slim.fully_connected],
                    weights_initializer=slim.xavier_initializer(seed=1),
                    weights_regularizer=slim.l2_regularizer(0.01)):
    with slim.arg_scope([slim.batch_norm], **BN):
        net = slim.conv2d(x, 3, [3, 3], scope="c1")
        net = slim.conv2d(net, 4, [3, 3], stride=2, normalizer_fn=slim.batch_norm, scope="c2")
        net = slim.avg_pool2d(net, [2, 2], stride=1, padding="SAME")
        net = slim.max_pool2d(net, [2, 2])
        net = slim.flatten(net)
        net = slim.fully_connected(net, 5, normalizer_fn=slim.batch_norm, scope="fc1")
        net = slim.dropout(net, 0.5, is_training=False)
        logits = slim.fully_connected(net, 3, activation_fn=None, scope="logits")
slim.losses.sparse_softmax_cross_entropy(logits, y)
total = slim.losses.get_total_loss()
train_op = slim.learning.create_train_op(total, tf.train.MomentumOptimizer(0.1, 0.9),
                                         clip_gradient_norm=2.0)
grads = tf.gradients(total, tf.trainable_variables())
feed = {x: X, y: Y}
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    w1 = sess.run("c1/weights:0").ravel()[:6]
    lv, tv = sess.run(logits, feed), sess.run(total, feed)
    gv = [g.ravel()[:4] for g in sess.run(grads, feed)]
    steps = [sess.run(train_op, feed) for _ in range(3)]
    after = sess.run(total, {x: X, y: Y, training: False})
    mm, mv = sess.run(["c2/BatchNorm/moving_mean:0", "fc1/BatchNorm/moving_variance:0"])
    gs = sess.run(tf.train.get_global_step())
"""


def test_a_slim_cnn_trains_as_tf_trains_it():
    ns = run_tf1(TRAIN)
    # TF 2.21 (tf_slim): seeded xavier weights, logits, loss, gradients, three
    # create_train_op steps (each gives the loss before its update), the moving moments
    np.testing.assert_allclose(ns["w1"], [-0.19058, 0.307016, -0.328259, -0.003108,
                                          0.245031, -0.345817], atol=1e-6)
    np.testing.assert_allclose(ns["lv"], [[-1.019074, 1.25019, -1.230912],
                                          [0.188686, 0.445286, -0.194475],
                                          [-1.033625, -0.352498, -1.305255],
                                          [-0.341075, 0.773101, -0.361109]], atol=2e-6)
    assert ns["tv"] == pytest.approx(1.6322954, rel=1e-6)
    tf_grads = [[0.31025, 0.422679, 0.202103, 0.151715], [-0.072169, -0.232485, 0.123187],
                [-0.048661, 0.18605, -0.060016, 0.228904],
                [-0.042879, -0.088672, -0.022237, 0.113566],
                [-0.189562, 0.102547, 0.075031, 0.030177],
                [0.264256, -0.075726, 0.018429, -0.00848],
                [0.301808, 0.145973, -0.008027, 0.106957],
                [0.380392, 0.130201, 0.008086, 0.10294],
                [-0.225709, 0.307687, -0.087002, -0.368086], [-0.277565, 0.352934, -0.07537]]
    for got, want in zip(ns["gv"], tf_grads):
        np.testing.assert_allclose(got, want, atol=3e-6)
    np.testing.assert_allclose(ns["steps"], [1.6322954, 1.3160365, 0.9507781], rtol=1e-6)
    assert ns["after"] == pytest.approx(1.0865282, rel=1e-6)
    np.testing.assert_allclose(ns["mm"], [0.021765, -0.010729, -0.12985, 0.044382], atol=2e-6)
    np.testing.assert_allclose(ns["mv"], [0.801537, 0.769611, 0.817401, 0.734572, 0.942227],
                               atol=2e-6)
    assert ns["gs"] == 3


ZOO = """
import numpy as np
import tensorflow as tf
slim = tf.contrib.slim
BN = dict(updates_collections=[tf.GraphKeys.UPDATE_OPS])

def vgg_arg_scope(weight_decay=0.0005):
    with slim.arg_scope([slim.conv2d, slim.fully_connected], activation_fn=tf.nn.relu,
                        weights_regularizer=slim.l2_regularizer(weight_decay),
                        weights_initializer=tf.truncated_normal_initializer(0.0, 0.5, seed=7),
                        biases_initializer=tf.zeros_initializer()):
        with slim.arg_scope([slim.conv2d], padding='SAME') as arg_sc:
            return arg_sc

def tiny_vgg(inputs, num_classes=5, is_training=True, scope='vgg_a'):
    with tf.variable_scope(scope, 'vgg_a', [inputs]) as sc:
        end_points_collection = sc.original_name_scope + '_end_points'
        with slim.arg_scope([slim.conv2d, slim.max_pool2d],
                            outputs_collections=end_points_collection):
            net = slim.repeat(inputs, 2, slim.conv2d, 4, [3, 3], scope='conv1')
            net = slim.max_pool2d(net, [2, 2], scope='pool1')
            net = slim.conv2d(net, 6, [4, 4], padding='VALID', scope='fc6')
            net = slim.dropout(net, 0.5, is_training=is_training, scope='dropout6', seed=3)
            end_points = slim.utils.convert_collection_to_dict(end_points_collection)
            net = tf.reduce_mean(net, [1, 2], keep_dims=True, name='global_pool')
            net = slim.conv2d(net, num_classes, [1, 1], activation_fn=None, normalizer_fn=None,
                              scope='fc8')
            net = tf.squeeze(net, [1, 2], name='fc8/squeezed')
            end_points[sc.name + '/fc8'] = net
            return net, end_points

@slim.add_arg_scope
def bottleneck(inputs, depth, depth_bottleneck, stride, rate=1, outputs_collections=None,
               scope=None):
    with tf.variable_scope(scope, 'bottleneck_v1', [inputs]) as sc:
        depth_in = slim.utils.last_dimension(inputs.get_shape(), min_rank=4)
        if depth == depth_in:
            shortcut = (slim.max_pool2d(inputs, [1, 1], stride=stride, scope='shortcut')
                        if stride > 1 else inputs)
        else:
            shortcut = slim.conv2d(inputs, depth, [1, 1], stride=stride, activation_fn=None,
                                   scope='shortcut')
        residual = slim.conv2d(inputs, depth_bottleneck, [1, 1], stride=1, scope='conv1')
        residual = slim.conv2d(residual, depth_bottleneck, 3, stride=stride, rate=rate,
                               scope='conv2')
        residual = slim.conv2d(residual, depth, [1, 1], stride=1, activation_fn=None,
                               scope='conv3')
        output = tf.nn.relu(shortcut + residual)
        return slim.utils.collect_named_outputs(outputs_collections, sc.name, output)

x = tf.constant(np.random.RandomState(9).rand(2, 8, 8, 3).astype(np.float32))
with slim.arg_scope(vgg_arg_scope()):
    logits, ends = tiny_vgg(x, is_training=False)
with slim.arg_scope([slim.conv2d], weights_initializer=tf.glorot_normal_initializer(seed=4),
                    normalizer_fn=slim.batch_norm, normalizer_params=dict(BN, is_training=True)):
    with tf.variable_scope('resnet', values=[x]) as rsc:
        coll = rsc.original_name_scope + '_end_points'
        with slim.arg_scope([bottleneck], outputs_collections=coll):
            h = bottleneck(x, 8, 2, 2, scope='unit_1')
            h = bottleneck(h, 8, 2, 1, scope='unit_2')
        rends = slim.utils.convert_collection_to_dict(coll)
        h = slim.softmax(tf.reduce_mean(h, [1, 2]), scope='predictions')
unit_1 = [v.name for v in slim.get_model_variables('resnet/unit_1')]
g = tf.gradients(tf.reduce_sum(logits ** 2) + tf.reduce_sum(h * tf.range(8.0)) +
                 tf.add_n(tf.losses.get_regularization_losses()), tf.trainable_variables())
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    lv, fc6, hv = sess.run([logits, ends['vgg_a/fc6'], h])
    gsum = [np.abs(a).sum() for a in sess.run(g)]
"""


def test_model_zoo_style_vgg_and_resnet_blocks():
    ns = run_tf1(ZOO)
    # TF 2.21 (tf_slim): end points, names, outputs and gradient sizes of a VGG-style
    # net (vgg.py's arg scope and end points) and two resnet_v1 bottleneck units
    assert sorted(ns["ends"]) == ['vgg_a/conv1/conv1_1', 'vgg_a/conv1/conv1_2', 'vgg_a/fc6',
                                  'vgg_a/fc8', 'vgg_a/pool1']
    assert ns["logits"].name == "vgg_a/fc8/squeezed:0"
    assert list(ns["rends"]) == ['resnet/unit_1', 'resnet/unit_2']
    assert ns["h"].name == "resnet/predictions/Reshape_1:0"
    assert ns["unit_1"] == [f"resnet/unit_1/{layer}/{v}:0" for layer in
                            ("shortcut", "conv1", "conv2", "conv3") for v in
                            ("weights", "BatchNorm/beta", "BatchNorm/moving_mean",
                             "BatchNorm/moving_variance")]
    np.testing.assert_allclose(ns["lv"], [[-1.17695, -2.30339, 0.78049, -0.92304, 0.05131],
                                          [-1.16817, -1.63622, 0.50697, -0.43074, 0.38608]],
                               atol=2e-5)
    assert ns["fc6"].sum() == pytest.approx(6.3624, abs=1e-3)
    np.testing.assert_allclose(ns["hv"], [
        [0.1417, 0.09729, 0.14231, 0.15227, 0.1, 0.09956, 0.16052, 0.10635],
        [0.10133, 0.1625, 0.10613, 0.105, 0.17054, 0.09957, 0.09995, 0.15498]], atol=2e-5)
    np.testing.assert_allclose(ns["gsum"], [
        540.777, 38.3882, 590.5458, 48.1223, 992.8254, 18.3071, 60.9326, 18.7267, 1.5263,
        1.5805, 3.8673, 0.4212, 3.597, 0.1384, 2.4121, 1.5805, 0.5131, 0.0482, 2.4565,
        0.2018, 3.4065, 2.3453], rtol=2e-5, atol=2e-4)


WALKTHROUGH = """
import numpy as np
import tensorflow as tf
slim = tf.contrib.slim
def produce_batch(batch_size, noise=0.3):
    xs = np.random.RandomState(0).random_sample([batch_size, 1]) * 10
    ys = np.sin(xs) + 5 + np.random.RandomState(1).normal(size=[batch_size, 1], scale=noise)
    return [xs.astype(np.float32), ys.astype(np.float32)]
x_train, y_train = produce_batch(200)
x_test, y_test = produce_batch(200)
def regression_model(inputs, is_training=True, scope="deep_regression"):
    with tf.variable_scope(scope, 'deep_regression', [inputs]):
        end_points = {}
        with slim.arg_scope([slim.fully_connected], activation_fn=tf.nn.relu,
                            weights_regularizer=slim.l2_regularizer(0.01),
                            weights_initializer=slim.xavier_initializer(seed=1)):
            net = slim.fully_connected(inputs, 32, scope='fc1')
            end_points['fc1'] = net
            net = slim.dropout(net, 0.8, is_training=is_training, seed=2)
            net = slim.fully_connected(net, 16, scope='fc2')
            end_points['fc2'] = net
            predictions = slim.fully_connected(net, 1, activation_fn=None, scope='prediction')
            end_points['out'] = predictions
            return predictions, end_points
with tf.Graph().as_default():
    inputs, targets = tf.constant(x_train), tf.constant(y_train)
    predictions, nodes = regression_model(inputs, is_training=True)
    loss = tf.losses.mean_squared_error(labels=targets, predictions=predictions)
    total_loss = slim.losses.get_total_loss()
    optimizer = tf.train.AdamOptimizer(learning_rate=0.005)
    train_op = slim.learning.create_train_op(total_loss, optimizer)
    final_loss = slim.learning.train(train_op, logdir=ckpt_dir, number_of_steps=100,
                                     save_summaries_secs=5, log_every_n_steps=50)
with tf.Graph().as_default():
    inputs, targets = tf.constant(x_test), tf.constant(y_test)
    predictions, nodes = regression_model(inputs, is_training=False)
    values, updates = slim.metrics.aggregate_metric_map({
        'Mean Squared Error': slim.metrics.streaming_mean_squared_error(predictions, targets),
        'Mean Absolute Error': slim.metrics.streaming_mean_absolute_error(predictions, targets)})
    checkpoint_path = tf.train.latest_checkpoint(ckpt_dir)
    metric_values = slim.evaluation.evaluate_once(
        master='', checkpoint_path=checkpoint_path, logdir=ckpt_dir,
        eval_op=list(updates.values()), final_op=list(values.values()))
    metrics = dict(zip(values, metric_values))
"""


def test_the_slim_walkthrough_regression_trains_and_evaluates(tmp_path):
    # TF-Slim's walkthrough (slim_walkthrough.ipynb's regression model, seeded, 100
    # steps): slim.learning.train's last loss, then slim.evaluation.evaluate_once's
    # metrics on the checkpoint; TF 2.21 (tf_slim) printed the same numbers
    ns = run_tf1(WALKTHROUGH, ckpt_dir=str(tmp_path))
    assert ns["final_loss"] == pytest.approx(1.0843, abs=1e-4)
    assert ns["metrics"]["Mean Squared Error"] == pytest.approx(0.4919, abs=1e-4)
    assert ns["metrics"]["Mean Absolute Error"] == pytest.approx(0.5944, abs=1e-4)
    assert sorted(ns["nodes"]) == ["fc1", "fc2", "out"]
