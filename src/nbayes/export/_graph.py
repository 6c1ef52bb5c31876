"""The ONNX graph under construction, and the few building blocks the event models
write their log-likelihoods with.

Event models never import :mod:`onnx`: their ``onnx_log_likelihood`` methods get a
:class:`Graph` and call its methods (``const``, ``op`` and the helpers below), which
return the names of the tensors they made. Floating-point constants and inputs take the
graph's dtype (float64 by default, float32 on request), so one method writes both.

Example
-------
>>> import numpy as np
>>> g = Graph(np.float64)
>>> x = g.input("X", "float", (None, 2))
>>> y = g.op("MatMul", x, g.const(np.eye(2)))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: The default opset of the main domain (ReduceMax takes its axes as an input from 18).
DEFAULT_OPSET = 18
#: The oldest opset the graphs are written for (ReduceSum's axes input, IsNaN on doubles).
MIN_OPSET = 13
#: The opset of ``ai.onnx.ml`` (LabelEncoder with string and float keys).
ML_OPSET = 3


class Graph:
    """Nodes, constants and inputs of one ONNX graph, of floating dtype ``dtype``.

    ``dtype``: ``np.float64`` or ``np.float32``, the type of every float input,
    constant and intermediate; ``opset``: the ``ai.onnx`` opset written for;
    ``missing_strings``: the strings a string input holds for a missing value.
    """

    def __init__(self, dtype: Any = np.float64, opset: int = DEFAULT_OPSET,
                 missing_strings: Sequence[str] = ("",), opset_given: bool = False,
                 output_dtype: Any = None) -> None:  # fmt: skip
        self.dtype = np.dtype(dtype)
        self.output_dtype = self.dtype if output_dtype is None else np.dtype(output_dtype)
        self.opset = int(opset)
        self.opset_given = bool(opset_given)
        self.missing_strings = tuple(missing_strings)
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.inputs: list[Any] = []
        self.outputs: list[Any] = []
        self.value_infos: list[Any] = []
        self.domains: dict[str, int] = {"": self.opset}
        self._count = 0
        self._constants: dict[tuple, str] = {}

    def require_opset(self, version: int, what: str) -> None:
        """Write for opset ``version`` at least (``what`` needs its operators): the
        default opset is raised; an opset the caller chose below it is refused with
        :class:`NotSupportedError` naming ``what``."""
        if self.opset >= version:
            return
        if self.opset_given:
            from nbayes.errors import NotSupportedError

            raise NotSupportedError(
                f"{what} needs ONNX opset {version} or later (StringConcat, RegexFullMatch); "
                f"got opset={self.opset}."
            )
        self.opset = int(version)
        self.domains[""] = self.opset

    # ------------------------------------------------------------ naming
    def name(self, hint: str) -> str:
        """A fresh tensor name starting with ``hint``."""
        self._count += 1
        return f"{hint}_{self._count}"

    # ------------------------------------------------------------ inputs and outputs
    def input(self, name: str, kind: str, shape: Sequence[int | None]) -> str:
        """A graph input ``name`` of ``kind`` "float" (the graph's dtype), "string" or
        "int64", of ``shape`` (None for a free dimension)."""
        from onnx import helper

        self.inputs.append(helper.make_tensor_value_info(name, self._elem(kind), list(shape)))
        return name

    def takes_strings_only(self) -> bool:
        """Whether every input of the graph is a string tensor."""
        from onnx import TensorProto

        return bool(self.inputs) and all(
            i.type.tensor_type.elem_type == TensorProto.STRING for i in self.inputs
        )

    def output(self, name: str, tensor: str, kind: str, shape: Sequence[int | None]) -> None:
        """Expose ``tensor`` as the graph output ``name`` (the node that makes it is
        renamed, where nothing else reads it: no Identity node to run); a float output
        is cast to ``output_dtype`` where that is not the graph's dtype."""
        from onnx import helper

        if kind == "float" and self.output_dtype != self.dtype:
            element = helper.np_dtype_to_tensor_dtype(self.output_dtype)
            self.op("Cast", tensor, out=name, to=element)
            self.outputs.append(helper.make_tensor_value_info(name, element, list(shape)))
            return

        producer = self._producer(tensor)
        if producer is not None and not self._is_read(tensor) and tensor not in self._graph_names():
            producer.output[0] = name
        else:
            self.op("Identity", tensor, out=name)
        self.outputs.append(helper.make_tensor_value_info(name, self._elem(kind), list(shape)))

    def declare(self, tensor: str, kind: str, shape: Sequence[int | None] | None = None) -> str:
        """State the type of ``tensor`` made by an operator ONNX's shape inference does
        not know (onnxruntime's Tokenizer), so that the operators reading it are
        checked (and onnx's inference of RegexFullMatch finds a type)."""
        from onnx import helper

        dims = None if shape is None else list(shape)
        self.value_infos.append(helper.make_tensor_value_info(tensor, self._elem(kind), dims))
        return tensor

    @property
    def float_type(self) -> int:
        """The ONNX element type of the graph's floats (for ``Cast``)."""
        return self._elem("float")

    @property
    def int64_type(self) -> int:
        return self._elem("int64")

    @property
    def bool_type(self) -> int:
        from onnx import TensorProto

        return TensorProto.BOOL

    def _elem(self, kind: str) -> int:
        from onnx import TensorProto, helper

        if kind == "float":
            return helper.np_dtype_to_tensor_dtype(self.dtype)
        return {"string": TensorProto.STRING, "int64": TensorProto.INT64}[kind]

    # ------------------------------------------------------------ nodes
    def const(self, value: Any, dtype: Any = None) -> str:
        """A constant tensor of ``value``: floats in the graph's dtype unless ``dtype``
        is given; integers as int64; strings as strings. Equal constants are shared."""
        from onnx import numpy_helper

        array = np.asarray(value)
        if dtype is not None:
            array = array.astype(dtype)
        elif array.dtype.kind == "f":
            array = array.astype(self.dtype)
        elif array.dtype.kind in "iub":
            array = array.astype(np.int64) if array.dtype.kind != "b" else array
        elif array.dtype.kind in "UO":
            array = array.astype(object)
        key = (array.dtype.str, array.shape, array.tobytes() if array.dtype != object
               else tuple(array.ravel().tolist()))  # fmt: skip
        found = self._constants.get(key)
        if found is not None:
            return found
        name = self.name("c")
        if array.dtype == object:
            from onnx import TensorProto, helper

            tensor = helper.make_tensor(
                name, TensorProto.STRING, array.shape, [str(v).encode() for v in array.ravel()]
            )
        else:
            tensor = numpy_helper.from_array(np.ascontiguousarray(array), name)
        self.initializers.append(tensor)
        self._constants[key] = name
        return name

    def op(self, op_type: str, *inputs: str, out: str | None = None, domain: str = "",
           **attributes: Any) -> str:  # fmt: skip
        """One node ``op_type(inputs, **attributes)``; returns its output's name."""
        from onnx import helper

        output = out or self.name(op_type.lower())
        if domain and domain not in self.domains:
            self.domains[domain] = ML_OPSET if domain == "ai.onnx.ml" else 1
        self.nodes.append(
            helper.make_node(op_type, list(inputs), [output], domain=domain or None, **attributes)
        )
        return output

    def _producer(self, tensor: str) -> Any:
        for node in reversed(self.nodes):
            if tensor in node.output:
                return node
        return None

    def _is_read(self, tensor: str) -> bool:
        return any(tensor in node.input for node in self.nodes)

    def _graph_names(self) -> set[str]:
        return {v.name for v in self.inputs}

    def constant_value(self, name: str) -> NDArray | None:
        """The value of constant ``name``, or None if it is no constant."""
        from onnx import numpy_helper

        for tensor in self.initializers:
            if tensor.name == name:
                return numpy_helper.to_array(tensor)
        return None

    def add_constant(self, x: str, values: NDArray) -> str:
        """``x + values`` for a float constant ``values`` (1, k), folded into the nodes
        that make ``x`` where nothing else reads what they make: into a constant term
        (``y + c``, a Gemm's ``C``), a MatMul made a Gemm, through a Gemm's ``C`` or a
        ``Where(m, -inf, y)`` (``-inf + v = -inf``) into ``y``; else one Add."""
        values = np.asarray(values, dtype=np.float64)
        if not self._is_read(x) and self._fold(x, values):
            return x
        return self.op("Add", x, self.const(values))

    def _reads(self, tensor: str, finite: bool = False) -> int:
        """How many node inputs read ``tensor``; with ``finite`` (a finite constant
        is to be added to it), not counting IsNaN nodes, which it leaves alike."""
        return sum(
            list(node.input).count(tensor)
            for node in self.nodes
            if not (finite and node.op_type == "IsNaN")
        )

    def _fold(self, x: str, values: NDArray) -> bool:
        """Add ``values`` into what makes ``x`` (read at most once) without a new
        node; False (nothing changed) where that cannot be done."""
        producer = self._producer(x)
        if producer is None:
            return False
        term = {"Add": 1, "Gemm": 2}.get(producer.op_type)
        if term is not None and len(producer.input) > term:
            constant = self.constant_value(producer.input[term])
            if constant is not None and constant.dtype.kind == "f":
                merged = constant.astype(np.float64) + values
                if merged.shape != np.broadcast_shapes(constant.shape, values.shape):
                    return False
                producer.input[term] = self.const(merged)
                return True
            inner = producer.input[term]
            return producer.op_type == "Gemm" and self._reads(inner) == 1 and self._fold(
                inner, values
            )
        if producer.op_type == "MatMul" and self.constant_value(producer.input[1]) is not None:
            producer.op_type = "Gemm"
            producer.input.append(self.const(values))
            return True
        if producer.op_type == "Where":
            impossible = self.constant_value(producer.input[1])
            inner = producer.input[2]
            if impossible is not None and np.all(np.isneginf(impossible)):
                finite = bool(np.all(np.isfinite(values)))
                return self._reads(inner, finite) == 1 and self._fold(inner, values)
        return False

    def gemm(self, x: str, weights: NDArray, c: str) -> str:
        """``x @ weights.T + c`` for ``x`` (n, F), a constant ``weights`` (K, F) and a
        tensor ``c`` broadcast to (n, K): one Gemm."""
        return self.op("Gemm", x, self.const(np.ascontiguousarray(np.asarray(weights).T)), c)

    def reduce(self, op_type: str, x: str, axis: int, keepdims: bool = False) -> str:
        """``op_type`` (ReduceSum, ReduceMax, ReduceLogSumExp, ...) over ``axis``, in
        the form of the graph's opset (axes an input from opset 13 for ReduceSum, 18
        for the others)."""
        as_input = self.opset >= (13 if op_type == "ReduceSum" else 18)
        if as_input:
            return self.op(op_type, x, self.const([axis]), keepdims=int(keepdims))
        return self.op(op_type, x, axes=[axis], keepdims=int(keepdims))

    # ------------------------------------------------------------ building blocks
    def where(self, condition: str, when_true: str, when_false: str) -> str:
        return self.op("Where", condition, when_true, when_false)

    def is_missing(self, x: str) -> str:
        """Where float ``x`` is NaN (a missing value)."""
        return self.op("IsNaN", x)

    def zero_where(self, condition: str, x: str) -> str:
        """``x`` with 0 where ``condition`` (e.g. a missing value's term)."""
        return self.where(condition, self.const(0.0), x)

    def filled(self, x: str) -> tuple[str, str]:
        """``(missing, x with 0 for NaN)``: the mask and the values of float ``x``."""
        missing = self.is_missing(x)
        return missing, self.zero_where(missing, x)

    def codes(self, x: str) -> str:
        """Float ``x`` as int64 codes, -1 where it is NaN (a missing value)."""
        filled = self.where(self.is_missing(x), self.const(-1.0), x)
        return self.op("Cast", filled, to=self.int64_type)

    def observed(self, x: str) -> tuple[str, str]:
        """``(observed as 0/1 floats, x with 0 for NaN)``."""
        missing, values = self.filled(x)
        return self.op("Cast", self.op("Not", missing), to=self.float_type), values

    def matmul(self, x: str, weights: NDArray) -> str:
        """``x @ weights.T`` for ``x`` (n, F) and a finite constant ``weights`` (K, F)."""
        return self.op("MatMul", x, self.const(np.ascontiguousarray(np.asarray(weights).T)))

    def dot(self, x: str, weights: NDArray, intercept: NDArray | None = None) -> str:
        """``x @ weights.T (+ intercept)`` for non-negative ``x`` (n, F) and constant
        ``weights`` (K, F) that may hold ``±inf``, with ``0 * inf = 0``: an infinite
        weight counts only in rows where its feature is present (as
        :func:`nbayes.events.counts.dot_with_infinities`): (n, K)."""
        weights = np.asarray(weights, dtype=np.float64)
        finite = np.isfinite(weights)
        out = self.matmul(x, np.where(finite, weights, 0.0))
        if intercept is not None:
            out = self.op("Add", out, self.const(np.asarray(intercept)[None, :]))
        for infinity in (-np.inf, np.inf):
            hits = weights == infinity
            if hits.any():
                present = self.op("Greater", self.matmul(x, hits.astype(np.float64)),
                                  self.const(0.0))  # fmt: skip
                out = self.where(present, self.const(infinity), out)
        return out

    def sum_terms(self, terms: str) -> str:
        """``terms`` (n, K, F) summed over features: (n, K)."""
        return self.reduce("ReduceSum", terms, axis=2)

    def per_class(self, x: str) -> str:
        """``x`` (n, F) as (n, 1, F), to broadcast against (K, F) parameters."""
        return self.op("Unsqueeze", x, self.const([1]))

    def lookup_sum(self, codes: str, tables: Sequence[NDArray]) -> str:
        """``sum_j tables[j][:, codes[:, j]]`` for int64 ``codes`` (n, F): the
        per-class log terms of each feature's category, a code outside
        ``0 .. K_j - 1`` (missing, -1, or unseen) adding 0: (n, K).

        One Gather from the flat table of every (feature, category) row plus a row of
        zeros that unknown codes point to; NaN entries of a table (``0 / 0`` of an
        unsmoothed feature no row has) count 0, as nbayes's gather does.
        """
        sizes = np.array([t.shape[1] for t in tables], dtype=np.int64)
        n_classes = tables[0].shape[0] if tables else 0
        offsets = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        flat = np.concatenate([np.asarray(t, dtype=np.float64).T for t in tables]
                              + [np.zeros((1, n_classes))])  # fmt: skip
        flat = np.where(np.isnan(flat), 0.0, flat)
        known = self.op(
            "And",
            self.op("GreaterOrEqual", codes, self.const(np.zeros(1, dtype=np.int64))),
            self.op("Less", codes, self.const(sizes[None, :])),
        )
        index = self.where(known, self.op("Add", codes, self.const(offsets[None, :])),
                           self.const(np.array(int(sizes.sum()), dtype=np.int64)))  # fmt: skip
        gathered = self.op("Gather", self.const(flat), index, axis=0)  # (n, F, K)
        return self.reduce("ReduceSum", gathered, axis=1)

    def interval_codes(self, x: str, cuts: Sequence[NDArray]) -> str:
        """``searchsorted(cuts_j, x_j)`` (side "left": the number of cuts below x) per
        column of float ``x`` (n, F), as int64 (n, F); NaN gets ``len(cuts_j) + 1``
        (an unknown code, so its term is left out)."""
        width = max((c.size for c in cuts), default=0)
        if width == 0:
            codes = self.op("Cast", self.op("Mul", x, self.const(0.0)), to=self.int64_type)
        else:
            padded = np.full((len(cuts), width), np.inf)
            for j, cut in enumerate(cuts):
                padded[j, : cut.size] = cut
            above = self.op("Greater", self.op("Unsqueeze", x, self.const([2])),
                            self.const(padded[None]))  # fmt: skip
            codes = self.reduce("ReduceSum", self.op("Cast", above, to=self.int64_type), 2)
        sizes = np.array([c.size + 1 for c in cuts], dtype=np.int64)
        return self.where(self.is_missing(x), self.const(sizes[None, :]), codes)

    def value_codes(self, x: str, values: Sequence[Any], unseen: int) -> str:
        """String tensor ``x`` coded against ``values`` (code = position; a value
        compared as ``str`` of it, the first of values alike as strings winning):
        ``unseen`` for any other string, -1 for the graph's missing strings (unless one
        is itself a value). One ai.onnx.ml LabelEncoder."""
        keys: list[str] = []
        codes: list[int] = []
        for code, value in enumerate(values):
            text = str(value)
            if text not in keys:
                keys.append(text)
                codes.append(code)
        for marker in self.missing_strings:
            if marker not in keys:
                keys.append(marker)
                codes.append(-1)
        return self.label_encoder(x, keys, codes, unseen)

    def label_encoder(self, x: str, keys: Sequence[str], codes: Sequence[int],
                      default: int) -> str:  # fmt: skip
        """String tensor ``x`` mapped to int64 codes by ``keys -> codes`` (ai.onnx.ml
        LabelEncoder), ``default`` for any other string."""
        return self.op("LabelEncoder", x, domain="ai.onnx.ml", keys_strings=list(keys),
                       values_int64s=[int(c) for c in codes], default_int64=int(default))

    def document_counts(self, column: str, tokenizer: Any, terms: Sequence[str]) -> str:
        """A text column (n, 1) as counts (n, len(terms)) of ``terms`` under the
        :class:`nbayes.text.Tokenizer` ``tokenizer`` (:func:`nbayes.export.text.document_counts`):
        offered here so the text event model writes its counts without importing the
        exporter."""
        from nbayes.export.text import document_counts

        return document_counts(self, column, tokenizer, terms)

    def model(self, producer: str = "nbayes") -> Any:
        """The finished :class:`onnx.ModelProto`."""
        from onnx import helper

        read = {name for node in self.nodes for name in node.input}
        initializers = [t for t in self.initializers if t.name in read]  # merged ones dropped
        graph = helper.make_graph(self.nodes, "nbayes", self.inputs, self.outputs,
                                  initializers, value_info=self.value_infos)  # fmt: skip
        opsets = [helper.make_opsetid(domain, version) for domain, version in self.domains.items()]
        model = helper.make_model(graph, opset_imports=opsets, producer_name=producer)
        model.ir_version = min(model.ir_version, 9)
        return model
