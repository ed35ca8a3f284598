"""A trained surrogate bound to one point set: u for one problem or a batch of them.

Everything that depends on the points alone is computed once, when the predictor is built:
the normalised coordinates x̂ = (x − m_x)/s_x and, for a separable model
(:class:`~surrogate.models.deeponet.DeepONet`, alone or behind a sensor encoder), its trunk
features T = t(x̂) (P, p). A batch of B problems with normalised columns ẑ (B, m) (μ, or the
sensor values of a ``fields`` run) then costs one branch evaluation and one matrix product,
with the output's denormalisation folded into the coefficients:

    u[b, i, c] = s_c (Σ_k b_{c,k}(ẑ_b) T[i, k] + β_c) + m_c,

as ``addmm(bias, T, Bᵀ)`` with B = (s_c b_{c,k}) of shape (B·n, p). Any other run is
evaluated on the rows (x̂, ẑ_b), built from the cached x̂ without numpy, in blocks of rows.
A ``pointwise`` family run needs f(x) and φ(x) of every problem, so its rows are built per
problem; a ``params-geometry`` run's rows get the family's geometry features g(x_i; μ_b)
block by block; a single-problem run's rows are built once.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch
from torch import Tensor

from surrogate.core.errors import InputError
from surrogate.models.config import POINT_COLUMNS
from surrogate.predict.options import DTYPE_CHOICES
from surrogate.predict.point_sets import PointSet
from surrogate.runs.predict import CPU_BATCH, GPU_BATCH
from surrogate.training.family_inputs import GEOMETRY

DTYPES = {name: getattr(torch, name) for name in DTYPE_CHOICES}


def _split_model(model: Any) -> tuple[Any, Any]:
    """(encoder or None, core): a ``fields`` model is an encoder in front of its core."""
    encoder = getattr(model, "_modules", {}).get("encoder")
    return (encoder, model.core) if encoder is not None else (None, model)


class Predictor:
    """``Predictor(run, points).predict(mu)``: u (P, n) for μ (p,), (B, P, n) for (B, p).

    ``run``: a :class:`~surrogate.runs.run.Run` or its directory; ``points``: a
    :class:`PointSet`, or an array (P, 3). ``device``: "cpu", "cuda" or "auto"; ``dtype``:
    "float32" or "float64" (of the computation and of the returned arrays).
    """

    def __init__(self, run: Any, points: PointSet | np.ndarray, *, device: str = "cpu",
                 dtype: str = "float32", batch_rows: int | None = None) -> None:
        from surrogate.evaluation.devices import resolve_inference_device

        if not hasattr(run, "model"):
            from surrogate.runs.load import load_run

            run = load_run(run)
        if dtype not in DTYPES:
            raise InputError(f"unknown dtype {dtype!r}; choose one of: {', '.join(DTYPES)}")
        self.run = run
        self.point_set = points if isinstance(points, PointSet) else PointSet(points)
        self.device = torch.device(resolve_inference_device(device))
        self.dtype = DTYPES[dtype]
        self.kind = str(getattr(run.model_config, "inputs", "pointwise"))
        self.family = _family(run.dataset)
        self.param_names = tuple(run.dataset.get("param_names") or (
            self.family.param_names if self.family is not None else ()))
        box = run.dataset.get("param_box")
        self.param_box = None if box is None else np.asarray(box, dtype=float)
        self.batch_rows = batch_rows or (CPU_BATCH if self.device.type == "cpu" else GPU_BATCH)
        self.model = copy.deepcopy(run.model).to(device=self.device, dtype=self.dtype).eval()
        self.encoder, self.core = _split_model(self.model)
        norm = run.normalisation
        self._mean_in, self._std_in = norm.input_mean, norm.input_std
        self._std_out = self._tensor(norm.target_std)
        self._mean_out = self._tensor(norm.target_mean)
        self.points_hat = self._tensor(
            (self.point_set.points - norm.input_mean[:POINT_COLUMNS]) / norm.input_std[
                :POINT_COLUMNS])
        self.features = None
        if self.separable:
            with torch.inference_mode():
                self.features = self.core.trunk_features(self.points_hat).contiguous()
        self._single_rows = None

    @property
    def separable(self) -> bool:
        """True when the model is u = Σ_k b_k(z) t_k(x) + β (trunk features cached)."""
        return self.kind != "pointwise" and hasattr(self.core, "trunk_features") \
            and hasattr(self.core, "branch_coefficients")

    @property
    def n_points(self) -> int:
        return len(self.point_set)

    def _tensor(self, values: np.ndarray) -> Tensor:
        return torch.as_tensor(np.asarray(values, dtype=np.float64), dtype=self.dtype,
                               device=self.device)

    # ---- problems ------------------------------------------------------------------------
    def _params(self, mu: Any) -> tuple[np.ndarray, bool]:
        """μ as (B, p) float64 and whether one problem (p,) was given."""
        if self.family is None:
            raise InputError(f"run {self.run.path} was trained on one problem; call predict() "
                             "without parameters")
        mu = np.asarray(mu, dtype=np.float64)
        single = mu.ndim == 1
        mu = mu[None, :] if single else mu
        p = len(self.param_names)
        if mu.ndim != 2 or mu.shape[1] != p or mu.shape[0] == 0:
            raise InputError(f"parameters must have shape ({p},) or (B, {p}) "
                             f"({', '.join(self.param_names)}), got {np.shape(mu)}")
        if not np.isfinite(mu).all():
            raise InputError("parameters contain non-finite values")
        return mu, single

    def sensor_values(self, mu: np.ndarray) -> np.ndarray:
        """The sensor values s (B, q) of the family's problems μ (B, p) (``fields`` runs)."""
        from surrogate.fem.families import recorded_sensors, sensor_values

        sensors = recorded_sensors(self.run)
        params, _ = self._params(mu)
        return np.stack([sensor_values(self.family.problem(m), sensors) for m in params])

    # ---- predictions ---------------------------------------------------------------------
    def predict(self, mu: Any = None) -> np.ndarray:
        """u at the points: (P, n) for one problem μ (p,) (or a single-problem run, ``mu``
        None), (B, P, n) for a batch μ (B, p). A ``fields`` run computes the problems' sensor
        values from the family (see :meth:`predict_sensors` to give them)."""
        return self._numpy(*self.predict_tensor(mu))

    def predict_sensors(self, values: Any) -> np.ndarray:
        """u of a ``fields`` run for sensor values (q,) -> (P, n) or (B, q) -> (B, P, n)."""
        if self.kind != "fields":
            raise InputError(f"run {self.run.path} has inputs {self.kind!r}; sensor values "
                             "are the inputs of 'fields' runs")
        values = np.asarray(values, dtype=np.float64)
        single = values.ndim == 1
        q = self._mean_in.shape[0] - POINT_COLUMNS
        values = values[None, :] if single else values
        if values.ndim != 2 or values.shape[1] != q or not np.isfinite(values).all():
            raise InputError(f"sensor values must be finite, of shape ({q},) or (B, {q}), got "
                             f"{np.shape(values)}")
        return self._numpy(self._columns(values), single)

    def predict_tensor(self, mu: Any = None) -> tuple[Tensor, bool]:
        """(u (B, P, n) on the predictor's device and dtype, whether one problem was given)."""
        if mu is None:
            return self._single_problem(), True
        params, single = self._params(mu)
        if self.kind == "pointwise":
            return self._pointwise_family(params), single
        columns = self.sensor_values(params) if self.kind == "fields" else params
        return self._columns(columns, params if self.kind == GEOMETRY else None), single

    def _numpy(self, out: Tensor, single: bool) -> np.ndarray:
        array = out.cpu().numpy()
        return array[0] if single else array

    def _columns(self, columns: np.ndarray, geometry_params: np.ndarray | None = None
                 ) -> Tensor:
        """u (B, P, n) for the problems' physical columns z (B, m) of the network's rows (and,
        for ``params-geometry``, the geometry features of the members ``geometry_params``)."""
        problem_columns = slice(POINT_COLUMNS, POINT_COLUMNS + columns.shape[1])
        z_hat = self._tensor((columns - self._mean_in[problem_columns])
                             / self._std_in[problem_columns])
        with torch.inference_mode():
            if self.separable:
                return self._separable(z_hat)
            return self._joined_forward(z_hat, geometry_params)

    def _separable(self, z_hat: Tensor) -> Tensor:
        """u[b, i, c] = s_c (Σ_k b_{c,k}(ẑ_b) T[i, k] + β_c) + m_c as one addmm, (B, P, n)."""
        code = self.encoder(z_hat) if self.encoder is not None else z_hat
        coefficients = self.core.branch_coefficients(code) * self._std_out[None, :, None]
        batch, n, p = coefficients.shape
        bias = self.core.output_bias * self._std_out + self._mean_out
        out = torch.addmm(bias.repeat(batch), self.features, coefficients.reshape(batch * n, p).T)
        return out.view(self.n_points, batch, n).transpose(0, 1)

    def _joined_forward(self, z_hat: Tensor, geometry_params: np.ndarray | None = None
                        ) -> Tensor:
        """u (B, P, n) from the rows (x̂_i, ẑ_b[, ĝ(x_i; μ_b)]), built block by block from the
        cached x̂ (the geometry features ĝ, when asked for, from the family per block)."""
        total = len(z_hat) * self.n_points
        out = torch.empty(total, self._mean_out.shape[0], dtype=self.dtype, device=self.device)
        for start in range(0, total, self.batch_rows):
            index = torch.arange(start, min(start + self.batch_rows, total), device=self.device)
            point = index % self.n_points
            problem = torch.div(index, self.n_points, rounding_mode="floor")
            parts = [self.points_hat[point], z_hat[problem]]
            if geometry_params is not None:
                parts.append(self._geometry_hat(point.cpu().numpy(),
                                                geometry_params[problem.cpu().numpy()]))
            rows = torch.cat(parts, dim=1)
            out[start:start + len(index)] = self.model(rows)
        return out.mul_(self._std_out).add_(self._mean_out).view(len(z_hat), self.n_points, -1)

    def _geometry_hat(self, point: np.ndarray, params: np.ndarray) -> Tensor:
        """Normalised geometry features (N, g) of the rows' points and members (N, p)."""
        g = self.family.geometry_features(self.point_set.points[point], params)
        return self._tensor((g - self._mean_in[-g.shape[1]:]) / self._std_in[-g.shape[1]:])

    def _rows_forward(self, rows: Tensor) -> Tensor:
        """Denormalised model outputs (N, n) for normalised rows (N, d), in row blocks."""
        out = torch.empty(rows.shape[0], self._mean_out.shape[0], dtype=self.dtype,
                          device=self.device)
        for start in range(0, rows.shape[0], self.batch_rows):
            block = slice(start, start + self.batch_rows)
            out[block] = self.model(rows[block])
        return out.mul_(self._std_out).add_(self._mean_out)

    def _normalised_rows(self, rows: np.ndarray) -> Tensor:
        return self._tensor((rows - self._mean_in) / self._std_in)

    def _pointwise_family(self, params: np.ndarray) -> Tensor:
        """Rows (x, f(x), φ(x)) of every problem μ (the family's closed forms at the points)."""
        out = torch.empty(len(params), self.n_points, self._mean_out.shape[0], dtype=self.dtype,
                          device=self.device)
        with torch.inference_mode():
            for b, mu in enumerate(params):  # f and φ are numpy functions of each problem
                rows = self.family.problem(mu).inputs(self.point_set.points)
                out[b] = self._rows_forward(self._normalised_rows(rows))
        return out

    def _single_problem(self) -> Tensor:
        """u (1, P, n) of a single-problem run (its rows are built once and kept)."""
        if self.family is not None:
            raise InputError(f"run {self.run.path} is a family run; give the problems' "
                             f"parameters ({', '.join(self.param_names)})")
        if self._single_rows is None:
            from surrogate.fem.problems import get_problem

            problem = get_problem(str(self.run.dataset.get("problem")))
            self._single_rows = self._normalised_rows(problem.inputs(self.point_set.points))
        with torch.inference_mode():
            return self._rows_forward(self._single_rows)[None]


def _family(dataset: dict[str, Any]) -> Any:
    """The run's problem family (None for a single-problem run)."""
    name = dataset.get("family")
    if name is None:
        return None
    from surrogate.fem.families import get_family

    return get_family(str(name))


__all__ = ["Predictor", "DTYPES"]
