"""The exceptions of ``torch._dynamo`` that ``torch.compile`` can raise in cinder."""

__all__ = ["InvalidBackend", "TorchDynamoException"]


class TorchDynamoException(RuntimeError):
    """Base of the errors ``torch.compile`` raises."""


class InvalidBackend(TorchDynamoException):
    """``torch.compile(backend=...)`` named no registered backend."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for "
                         "available backends.")
