"""Summary protos for each kind of data TensorBoard shows, built with the ``tensorboard``
package's protobuf classes (the same messages PyTorch's writer emits)."""

import io
import json
import wave

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ._convert import convert_to_HWC, make_np, prepare_video
from ..._tensor import Tensor


def _plugin_metadata(name, content=b""):
    return SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=name,
                                                                  content=content))


def _shape(*dims):
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in dims])


def scalar(name, value, new_style=False, double_precision=False):
    """One number; ``new_style`` stores it as a tensor for the scalars plugin."""
    value = make_np(value).squeeze()
    if value.ndim != 0:
        raise AssertionError("Tensor should contain one element (0 dimensions). Was given "
                             f"size: {value.size} and {value.ndim} dimensions.")
    value = float(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    proto = (TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[value], dtype="DT_FLOAT"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto,
                                        metadata=_plugin_metadata("scalars"))])


def make_histogram(values, bins, max_bins=None):
    """A HistogramProto: counts over ``bins`` (NumPy's spec), trimmed to the occupied range."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        step = len(counts) // max_bins
        if len(counts) % step:
            counts = np.pad(counts, (0, step - len(counts) % step))
        counts = counts.reshape(-1, step).sum(axis=-1)
        limits = np.concatenate([limits[:-1:step], limits[-1:]])
    occupied = np.cumsum(counts > 0)
    start, end = np.searchsorted(occupied, [0, occupied[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(min=values.min(), max=values.max(), num=len(values),
                          sum=values.sum(), sum_squares=values.dot(values),
                          bucket_limit=limits.tolist(), bucket=counts.tolist())


def histogram(name, values, bins, max_bins=None):
    hist = make_histogram(make_np(values).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    hist = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                          bucket_limit=bucket_limits, bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def _png(hwc_uint8, rescale=1):
    from PIL import Image
    h, w, c = hwc_uint8.shape
    img = Image.fromarray(hwc_uint8)
    if rescale != 1:
        img = img.resize((int(w * rescale), int(h * rescale)), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=buf.getvalue())


def _to_uint8(hwc):
    # Floats are taken to be in [0, 1]; uint8 images are used as they are.
    scale = 1 if hwc.dtype == np.uint8 else 255
    return (hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)


def image(tag, img, rescale=1, dataformats="NCHW"):
    hwc = convert_to_HWC(make_np(img), dataformats)
    return Summary(value=[Summary.Value(tag=tag, image=_png(_to_uint8(hwc), rescale))])


def figure_to_image(figures, close=True):
    """Render matplotlib figure(s) to CHW uint8 arrays."""
    import matplotlib.backends.backend_agg as agg
    import matplotlib.pyplot as plt

    def render(fig):
        canvas = agg.FigureCanvasAgg(fig)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba(), dtype=np.uint8)
        if close:
            plt.close(fig)
        return rgba[:, :, :3].transpose(2, 0, 1)

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)


def text(tag, text_string):
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
    meta = _plugin_metadata("text", TextPluginData(version=0).SerializeToString())
    proto = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                        tensor_shape=_shape(1))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta,
                                        tensor=proto)])


def audio(tag, samples, sample_rate=44100):
    a = make_np(samples).squeeze()
    if abs(a).max() > 1:
        print("warning: audio amplitude out of range, auto clipped.")
        a = a.clip(-1, 1)
    if a.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    pcm = (a * np.iinfo(np.int16).max).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(pcm.tobytes())
    clip = Summary.Audio(sample_rate=sample_rate, num_channels=1, length_frames=pcm.shape[-1],
                         encoded_audio_string=buf.getvalue(), content_type="audio/wav")
    return Summary(value=[Summary.Value(tag=tag, audio=clip)])


def video(tag, vid, fps=4):
    """An animated GIF of (N, T, C, H, W) frames; needs moviepy, as PyTorch's writer does."""
    frames = _to_uint8(prepare_video(make_np(vid)))
    try:
        from moviepy import ImageSequenceClip
    except ImportError:
        try:
            from moviepy.editor import ImageSequenceClip
        except ImportError as e:
            raise ImportError("add_video needs the moviepy package: pip install moviepy") from e
    import tempfile
    t, h, w, c = frames.shape
    with tempfile.NamedTemporaryFile(suffix=".gif") as f:
        ImageSequenceClip(list(frames), fps=fps).write_gif(f.name, logger=None)
        f.seek(0)
        gif = f.read()
    img = Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=gif)
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def compute_curve(labels, predictions, num_thresholds=127, weights=None):
    """tp, fp, tn, fn, precision, recall at ``num_thresholds`` evenly spaced thresholds."""
    weights = 1.0 if weights is None else weights
    bucket = np.int32(np.floor(predictions * (num_thresholds - 1)))
    lab = labels.astype(np.float64)
    rng = (0, num_thresholds - 1)
    tp_b, _ = np.histogram(bucket, bins=num_thresholds, range=rng, weights=lab * weights)
    fp_b, _ = np.histogram(bucket, bins=num_thresholds, range=rng, weights=(1 - lab) * weights)
    tp = np.cumsum(tp_b[::-1])[::-1]
    fp = np.cumsum(fp_b[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


def pr_curve_raw(tag, data, num_thresholds):
    from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData
    meta = _plugin_metadata("pr_curves", PrCurvePluginData(
        version=0, num_thresholds=num_thresholds).SerializeToString())
    proto = TensorProto(dtype="DT_FLOAT", float_val=data.reshape(-1).tolist(),
                        tensor_shape=_shape(*data.shape))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=proto)])


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None):
    num_thresholds = min(num_thresholds, 127)      # larger counts break the proto, as in PyTorch
    data = compute_curve(labels, predictions, num_thresholds, weights)
    return pr_curve_raw(tag, data, num_thresholds)


def custom_scalars(layout):
    """The custom-scalars plugin's layout: {category: {chart: ['Multiline'|'Margin', tags]}}."""
    from tensorboard.plugins.custom_scalar import layout_pb2
    categories = []
    for title, charts in layout.items():
        built = []
        for chart_name, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError("len(tags) != 3")
                series = layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1],
                                                              upper=tags[2])
                built.append(layout_pb2.Chart(title=chart_name, margin=layout_pb2.
                                              MarginChartContent(series=[series])))
            else:
                built.append(layout_pb2.Chart(title=chart_name, multiline=layout_pb2.
                                              MultilineChartContent(tag=tags)))
        categories.append(layout_pb2.Category(title=title, chart=built))
    proto = TensorProto(dtype="DT_STRING", tensor_shape=TensorShapeProto(),
                        string_val=[layout_pb2.Layout(category=categories).SerializeToString()])
    return Summary(value=[Summary.Value(tag="custom_scalars__config__", tensor=proto,
                                        metadata=_plugin_metadata("custom_scalars"))])


def mesh(tag, vertices, colors, faces, config_dict, display_name=None, description=None):
    """Vertices, faces and colours as three tensors for the mesh plugin."""
    from tensorboard.plugins.mesh import metadata
    from tensorboard.plugins.mesh.plugin_data_pb2 import MeshPluginData
    json_config = "{}" if config_dict is None else json.dumps(config_dict, sort_keys=True)
    parts = [(v, kind) for v, kind in ((vertices, MeshPluginData.VERTEX),
                                       (faces, MeshPluginData.FACE),
                                       (colors, MeshPluginData.COLOR)) if v is not None]
    components = metadata.get_components_bitmask([kind for _, kind in parts])
    values = []
    for data, kind in parts:
        arr = make_np(data).astype(np.float32)
        meta = metadata.create_summary_metadata(tag, display_name, kind, components, arr.shape,
                                                description, json_config=json_config)
        proto = TensorProto(dtype="DT_FLOAT", float_val=arr.reshape(-1).tolist(),
                            tensor_shape=_shape(*arr.shape))
        values.append(Summary.Value(tag=metadata.get_instance_name(tag, kind), tensor=proto,
                                    metadata=meta))
    return Summary(value=values)


def _hparam_value(ssi, k, v, infos, domains, DataType, struct_pb2):
    """Record one hyperparameter in the session info and its description in ``infos``."""
    from tensorboard.plugins.hparams.api_pb2 import HParamInfo
    if isinstance(v, Tensor):
        v = float(make_np(v).reshape(-1)[0])
    if isinstance(v, bool):
        field, kind, wrap = "bool_value", "DATA_TYPE_BOOL", "bool_value"
    elif isinstance(v, (int, float)):
        field, kind, wrap = "number_value", "DATA_TYPE_FLOAT64", "number_value"
    elif isinstance(v, str):
        field, kind, wrap = "string_value", "DATA_TYPE_STRING", "string_value"
    else:
        raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
    setattr(ssi.hparams[k], field, v)
    domain = None
    if k in domains:
        domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{wrap: d}) for d in domains[k]])
    infos.append(HParamInfo(name=k, type=DataType.Value(kind), domain_discrete=domain))


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The experiment, session-start and session-end summaries of the hparams plugin."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams.api_pb2 import (DataType, Experiment, MetricInfo,
                                                     MetricName, Status)
    from tensorboard.plugins.hparams.metadata import (EXPERIMENT_TAG, PLUGIN_DATA_VERSION,
                                                      PLUGIN_NAME, SESSION_END_INFO_TAG,
                                                      SESSION_START_INFO_TAG)
    from tensorboard.plugins.hparams.plugin_data_pb2 import (HParamsPluginData,
                                                             SessionEndInfo, SessionStartInfo)
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing "
                        "logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(
                isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same "
                            f"type as hparam_dict[{k}].")
    ssi, infos = SessionStartInfo(), []
    for k, v in hparam_dict.items():
        if v is not None:
            _hparam_value(ssi, k, v, infos, domains, DataType, struct_pb2)

    def wrapped(tag, **content):
        data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content).SerializeToString()
        return Summary(value=[Summary.Value(tag=tag,
                                            metadata=_plugin_metadata(PLUGIN_NAME, data))])

    metrics = [MetricInfo(name=MetricName(tag=k)) for k in metric_dict]
    exp = wrapped(EXPERIMENT_TAG, experiment=Experiment(hparam_infos=infos,
                                                        metric_infos=metrics))
    start = wrapped(SESSION_START_INFO_TAG, session_start_info=ssi)
    end = wrapped(SESSION_END_INFO_TAG, session_end_info=SessionEndInfo(
        status=Status.Value("STATUS_SUCCESS")))
    return exp, start, end
