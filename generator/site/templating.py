"""Jinja templating for Markdown pages: record text only ever arrives as variables."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

import jinja2

from generator.patterns.translate import key_text
from generator.site.markup import fence, inline, literal, prose, safe_url

STACK_LABELS = {
    "pytorch": "PyTorch",
    "hf-trainer": "HF Trainer",
    "accelerate": "Accelerate",
    "deepspeed": "DeepSpeed",
    "megatron": "Megatron-LM",
    "vllm": "vLLM",
    "shell": "Shell",
    "slurm": "Slurm",
    "kubernetes": "Kubernetes",
}
CATEGORY_TITLES = {
    "communication": "Communication",
    "launcher": "Launcher and rendezvous",
    "memory": "Memory",
    "hardware": "Hardware",
    "numerical": "Numerical",
    "data": "Data and user code",
    "compilation": "Compilation",
    "checkpoint": "Checkpoint",
    "sharding": "FSDP and DeepSpeed",
    "performance": "Performance",
}


@dataclass(frozen=True)
class Page:
    """One generated Markdown page, addressed by its path under the docs directory."""

    path: str
    markdown: str


@dataclass(frozen=True)
class SiteOptions:
    """Settings that change page text: where a record's YAML can be edited."""

    edit_url: str = ""


class RecordEnvironment(jinja2.Environment):
    """A Jinja environment that reads ``record.field`` as a key first.

    Records are read-only mappings, so Jinja's default order (attribute, then key) raises
    and catches an AttributeError for every field a template reads.
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        """Return ``obj[attribute]`` for a mapping that has the key, else the attribute."""
        if type(obj) in MAPPINGS and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)


MAPPINGS = (dict, MappingProxyType)


@cache
def environment() -> jinja2.Environment:
    """Return the Jinja environment; record text only ever arrives as variables."""
    env = RecordEnvironment(
        loader=jinja2.PackageLoader("generator.site", "templates"),
        auto_reload=False,  # templates are package files: no stat() per page to see if they changed
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(inline=inline, literal=literal, prose=prose, fence=fence, url=safe_url, key_text=key_text)
    env.globals.update(stack_label=STACK_LABELS.get, category_title=CATEGORY_TITLES.get)
    return env


def render_template(name: str, **context: Any) -> str:
    """Return a rendered template."""
    return environment().get_template(name).render(**context)
