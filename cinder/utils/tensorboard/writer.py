"""SummaryWriter: log scalars, images, histograms, graphs... to TensorBoard event files.

Event files are written by the ``tensorboard`` package's own EventFileWriter with its
protobuf messages, as PyTorch's writer does, so TensorBoard (and its EventAccumulator) read
them the same way.
"""

import os
import socket
import time
from datetime import datetime

import numpy as np
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary as S
from ._convert import make_np
from ._graph import graph


class FileWriter:
    """Writes Event protos to one event file in ``log_dir``."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        log_dir = str(log_dir)
        self.event_writer = EventFileWriter(log_dir, max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_def, walltime=None):
        self.add_event(Event(graph_def=graph_def.SerializeToString()), None, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()

    def reopen(self):
        self.event_writer.reopen()


def _default_bins():
    """PyTorch's 'tensorflow' bins: +-1e-12 growing by 10% to 1e20, and zero."""
    edges, v = [], 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


class SummaryWriter:
    """Write TensorBoard events to ``log_dir`` (default ``runs/<date>_<host><comment>``).

    ``purge_step`` hides events at or after that step left by a crashed run;
    ``max_queue``/``flush_secs`` control buffering; ``filename_suffix`` ends the file name.
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=""):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue, self.flush_secs = max_queue, flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _get_file_writer(self):
        """The main FileWriter, created (again) when needed; writes the purge marker once."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=SessionLog(
                    status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def _summary(self, summary, global_step=None, walltime=None):
        self._get_file_writer().add_summary(summary, global_step, walltime)

    # -- numbers -----------------------------------------------------------------------------
    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        self._summary(S.scalar(tag, scalar_value, new_style, double_precision), global_step,
                      walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several curves on one chart: each goes to its own run ``<log_dir>/<main>_<tag>``."""
        walltime = time.time() if walltime is None else walltime
        root = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            key = root + "/" + main_tag.replace("/", "_") + "_" + tag
            if key not in self.all_writers:
                self.all_writers[key] = FileWriter(key, self.max_queue, self.flush_secs,
                                                   self.filename_suffix)
            self.all_writers[key].add_summary(S.scalar(main_tag, value), global_step, walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None):
        from tensorboard.compat.proto.tensor_pb2 import TensorProto
        arr = make_np(tensor)
        proto = TensorProto(dtype="DT_FLOAT", float_val=arr.reshape(-1).astype(float).tolist(),
                            tensor_shape=S._shape(*arr.shape))
        self._summary(S.Summary(value=[S.Summary.Value(tag=tag, tensor=proto,
                                                       metadata=S._plugin_metadata("tensor"))]),
                      global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._summary(S.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits,
                          bucket_counts, global_step=None, walltime=None):
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._summary(S.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits,
                                      bucket_counts), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        """Hyperparameters and their metrics, in a sub-run named ``run_name`` (default: time)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, ssi, sei = S.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as w:
            for s in (exp, ssi, sei):
                w.file_writer.add_summary(s, global_step)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    # -- pictures and media ------------------------------------------------------------------
    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        self._summary(S.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        self._summary(S.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them) rendered to an image."""
        if isinstance(figure, list):
            self.add_images(tag, S.figure_to_image(figure, close), global_step, walltime,
                            dataformats="NCHW")
        else:
            self.add_image(tag, S.figure_to_image(figure, close), global_step, walltime,
                           dataformats="CHW")

    def add_video(self, tag, vid_tensor, global_step=None, fps=4, walltime=None):
        self._summary(S.video(tag, vid_tensor, fps), global_step, walltime)

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        self._summary(S.audio(tag, snd_tensor, sample_rate), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._summary(S.text(tag, text_string), global_step, walltime)

    def add_mesh(self, tag, vertices, colors=None, faces=None, config_dict=None,
                 global_step=None, walltime=None):
        self._summary(S.mesh(tag, vertices, colors, faces, config_dict), global_step, walltime)

    # -- curves, layouts, graphs, embeddings -------------------------------------------------
    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127,
                     weights=None, walltime=None):
        self._summary(S.pr_curve(tag, make_np(labels), make_np(predictions), num_thresholds,
                                 weights), global_step, walltime)

    def add_pr_curve_raw(self, tag, true_positive_counts, false_positive_counts,
                         true_negative_counts, false_negative_counts, precision, recall,
                         global_step=None, num_thresholds=127, weights=None, walltime=None):
        data = np.stack([make_np(v) for v in (true_positive_counts, false_positive_counts,
                                               true_negative_counts, false_negative_counts,
                                               precision, recall)])
        self._summary(S.pr_curve_raw(tag, data, min(num_thresholds, 127)), global_step,
                      walltime)

    def add_custom_scalars(self, layout):
        self._get_file_writer().add_summary(S.custom_scalars(layout))

    def add_custom_scalars_multilinechart(self, tags, category="default", title="untitled"):
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(self, tags, category="default", title="untitled"):
        if len(tags) != 3:
            raise AssertionError("len(tags) != 3")
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """The module tree and the autograd graph of ``model(input_to_model)``."""
        self._get_file_writer().add_graph(graph(model, input_to_model))

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default",
                      metadata_header=None):
        """Projector files: tensors.tsv, metadata.tsv, sprite.png and projector_config.pbtxt."""
        from ._embedding import write_embedding
        step = 0 if global_step is None else global_step
        write_embedding(self, make_np(mat), metadata, label_img, step, tag, metadata_header)

    def flush(self):
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self):
        for writer in (self.all_writers or {}).values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
