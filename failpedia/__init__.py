"""Failpedia from Python: diagnose a training log with the catalog's tested signatures, offline.

    import failpedia

    result = failpedia.diagnose(pathlib.Path("train.log"))   # or the log's text, or bytes
    for finding in result.findings:                          # best first
        print(finding.id, finding.url, finding.causes[0].title, finding.fix.first_step)

Each finding carries the fields of one `failpedia diagnose --json` finding
(schema/diagnosis.schema.json); ``result.json`` is that object itself.
"""

from generator.api import CatalogError, Cause, Diagnosis, Evidence, Finding, Fix, Place, diagnose

__all__ = ["CatalogError", "Cause", "Diagnosis", "Evidence", "Finding", "Fix", "Place", "diagnose"]
