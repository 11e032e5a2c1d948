"""graddoctor: finds why a PyTorch model does not learn, and says where in your code."""

from graddoctor._version import __version__
from graddoctor.errors import GradDoctorError
from graddoctor.explain.explainer import explain
from graddoctor.finding import Finding, Severity
from graddoctor.graph.diagnose import diagnose
from graddoctor.numerics.monitor import GradFlowMonitor
from graddoctor.report.report import Report
from graddoctor.watch import watch

__all__ = [
    "Finding",
    "GradFlowMonitor",
    "GradDoctorError",
    "Report",
    "Severity",
    "__version__",
    "diagnose",
    "explain",
    "watch",
]
