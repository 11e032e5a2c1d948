"""graddoctor: finds why a PyTorch model does not learn, and says where in your code."""

from graddoctor._version import __version__
from graddoctor.errors import GradDoctorError
from graddoctor.explain.explainer import explain
from graddoctor.finding import Finding, Severity
from graddoctor.graph.diagnose import diagnose
from graddoctor.helpers import check_loss, ensure_tensor_loss, safe_backward, train_one_epoch, verify_layer
from graddoctor.report.report import Report

__all__ = [
    "Finding",
    "GradDoctorError",
    "Report",
    "Severity",
    "__version__",
    "check_loss",
    "diagnose",
    "ensure_tensor_loss",
    "explain",
    "safe_backward",
    "train_one_epoch",
    "verify_layer",
]
