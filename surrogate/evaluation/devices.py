"""Where the surrogates of an evaluation run: the device choice and its description."""

from __future__ import annotations

from surrogate.core.errors import InputError

DEVICE_CHOICES = ("cpu", "cuda", "auto")


def resolve_inference_device(name: str) -> str:
    """"cpu" | "cuda" from "cpu" | "cuda" | "auto"; InputError when CUDA is asked for but absent."""
    if name not in DEVICE_CHOICES:
        raise InputError(f"unknown device {name!r}; choose one of: {', '.join(DEVICE_CHOICES)}")
    if name == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if name == "cuda":
        raise InputError("--device cuda: no CUDA device is available here; use cpu or auto")
    return "cpu"


def device_description(device: str) -> str:
    """E.g. "cpu (2 threads)" or "cuda (NVIDIA H100 80GB HBM3)"."""
    import torch

    if device == "cuda":
        return f"cuda ({torch.cuda.get_device_name()})"
    return f"cpu ({torch.get_num_threads()} threads)"


__all__ = ["DEVICE_CHOICES", "device_description", "resolve_inference_device"]
