"""The MkDocs plugin: the only module that imports mkdocs.

It loads and validates the records when the build starts, replaces the docs directory's
files with the generated pages, sanitises every generated page's HTML, and watches the
records when serving.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from mkdocs.commands.build import build
from mkdocs.config import config_options, load_config
from mkdocs.config.base import Config
from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files

from generator.cache import load_validated, outputs_key, read_mapping, read_outputs, write_mapping, write_outputs
from generator.records.errors import GeneratorError, has_errors
from generator.records.ledger import checked_releases, read_ledger
from generator.records.pipeline import Loaded, paused_gc
from generator.records.source import discover
from generator.site.hubs import Hub, load_hubs
from generator.site.render import categories, category_path, render_site
from generator.site.sanitize import UnknownInlineScript, content_key, sanitize, sanitizer_fingerprint, with_csp
from generator.site.searchfix import fix_search_worker
from generator.site.sitefiles import site_files
from generator.site.templating import SiteOptions

# Run in <head> of every page; it does nothing unless the site is opened from disk.
OFFLINE_SCRIPT = "assets/javascripts/offline.js"


def site_nav(loaded: Loaded, hubs: list[Hub]) -> list[Any]:
    """Return the small explicit navigation: home, diagnose, categories, comparisons, reference."""
    return [
        {"Home": "index.md"},
        {"Diagnose a log": "diagnose.md"},
        {"Categories": [category_path(name) for name in categories(loaded.catalog)]},
        {"Compare": ["compare/index.md", *[{hub.nav_title(): f"compare/{hub.id}.md"} for hub in hubs]]},
        {"Tags": "tags/index.md"},
        {"Reference": ["reference/fields.md", "reference/writing.md", "reference/elsewhere.md"]},
    ]


class FailpediaConfig(Config):  # type: ignore[no-untyped-call]
    """Options of the ``failpedia`` plugin in mkdocs.yml."""

    entries = config_options.Type(str, default="entries")
    hubs = config_options.Type(str, default="hubs")
    edit_url = config_options.Type(str, default="")


class FailpediaPlugin(BasePlugin[FailpediaConfig]):  # type: ignore[no-untyped-call]
    """Adds one generated page per record, plus home and category pages."""

    def __init__(self) -> None:
        self.loaded: Loaded | None = None
        self.records_key = ""
        self.root = Path()
        self.hubs: list[Hub] = []
        self.generated: set[str] = set()
        # Sanitised page bodies by content hash: from the last build, and from this one.
        self.sanitized_before: dict[str, str] = {}
        self.sanitized_now: dict[str, str] = {}

    def entries_dir(self, config: Any) -> Path:
        """Return the records directory, relative to mkdocs.yml."""
        return Path(config["config_file_path"]).resolve().parent / self.config.entries

    def hubs_dir(self, config: Any) -> Path:
        """Return the hub definitions directory, relative to mkdocs.yml."""
        return Path(config["config_file_path"]).resolve().parent / self.config.hubs

    def on_config(self, config: Any) -> Any:
        """Load and validate the records; stop the build on any error."""
        root = self.root = Path(config["config_file_path"]).resolve().parent
        self.records_key, loaded = load_validated(self.entries_dir(config), root)
        hubs, hub_issues = load_hubs(existing(self.hubs_dir(config)), loaded.catalog, root)
        issues = [*loaded.issues, *hub_issues]
        if not loaded.ok or has_errors(hub_issues):
            lines = "\n".join(str(issue) for issue in issues)
            raise PluginError(f"invalid records:\n{lines}")
        self.loaded, self.hubs = loaded, hubs
        if not config["nav"]:
            config["nav"] = site_nav(loaded, hubs)
        # First in <head>: a copy opened from disk needs it before the theme starts search.
        config["extra"]["polyfills"] = [OFFLINE_SCRIPT, *config["extra"].get("polyfills", [])]
        return config

    def on_files(self, files: Files, config: Any) -> Files:
        """Replace the docs directory's own files with the generated pages and API files."""
        kept = [
            file for file in files if not file.is_documentation_page() and not file.src_uri.endswith((".yaml", ".yml"))
        ]
        site_url = config.get("site_url") or ""
        hub_files = discover(existing(self.hubs_dir(config)))
        key = outputs_key(self.records_key, hub_files, f"{self.config.edit_url}|{site_url}")
        outputs = read_outputs(key)  # unchanged records, hubs, settings and code: the last build's files
        if outputs is None:
            outputs = self.generate(site_url)
            write_outputs(key, outputs)
        self.generated = {path for path in outputs if path.endswith(".md")}
        return Files(kept + [File.generated(config, path, content=text) for path, text in outputs.items()])

    def generate(self, site_url: str) -> dict[str, str]:
        """Return every generated file's text by path: the pages, then the other files."""
        assert self.loaded is not None
        with paused_gc():
            checks = checked_releases(self.loaded.catalog, read_ledger(self.root))
            pages = render_site(self.loaded.catalog, self.hubs, SiteOptions(edit_url=self.config.edit_url), checks)
        outputs = {page.path: page.markdown for page in pages}
        extra = site_files(self.loaded.catalog, site_url)
        outputs.update((path, extra[path].decode("utf-8")) for path in sorted(extra))
        return outputs

    def on_page_content(self, html: str, page: Any, config: Any, files: Files) -> str:
        """Sanitise the HTML of generated pages (a body unchanged since the last build is
        taken from the cache, which is keyed by the body and by the sanitiser's settings)."""
        if page.file.src_uri not in self.generated:
            return html
        key = content_key(html)
        clean = self.sanitized_before.get(key)
        if clean is None:
            clean = sanitize(html)
        self.sanitized_now[key] = clean
        return clean

    def on_post_page(self, output: str, page: Any, config: Any) -> str:
        """Open every page's <head> with a Content-Security-Policy; refuse inline scripts in content."""
        try:
            return with_csp(output)
        except UnknownInlineScript as exc:
            raise PluginError(f"{page.file.src_uri}: {exc}") from exc

    def on_pre_build(self, config: Any) -> None:
        """Read the sanitised bodies the last build kept."""
        self.sanitized_before = read_mapping(sanitized_cache_name())
        self.sanitized_now = {}

    @event_priority(-100)  # after the search plugin has written its index
    def on_post_build(self, config: Any) -> None:
        """Keep this build's sanitised bodies; give a copy opened from disk its search index; fix
        the theme's search worker (generator/site/searchfix.py)."""
        if self.sanitized_now.keys() != self.sanitized_before.keys():
            write_mapping(sanitized_cache_name(), self.sanitized_now)
        write_search_script(Path(config["site_dir"]) / "search")
        try:
            fix_search_worker(Path(config["site_dir"]))
        except GeneratorError as exc:
            raise PluginError(str(exc)) from None

    def on_post_template(self, output_content: str, template_name: str, config: Any) -> str:
        """Give the theme's own HTML pages (404.html) the same policy."""
        return with_csp(output_content) if template_name.endswith(".html") else output_content

    def on_serve(self, server: Any, config: Any, builder: Any) -> Any:
        """Rebuild when a record changes."""
        server.watch(str(self.entries_dir(config)))
        for path in existing(self.hubs_dir(config)):
            server.watch(str(path))
        return server


def write_search_script(folder: Path) -> None:
    """Write search_index.js beside search_index.json: the theme loads it on file://, where fetch fails."""
    index = folder / "search_index.json"
    if index.exists():
        (folder / "search_index.js").write_bytes(b"var __index = " + index.read_bytes().rstrip() + b";\n")


def sanitized_cache_name() -> str:
    """Return the cache file of sanitised bodies for the current sanitiser settings."""
    return f"sanitized-{sanitizer_fingerprint()}.json"


def existing(path: Path) -> list[Path]:
    """Return ``[path]`` when it exists, else nothing."""
    return [path] if path.exists() else []


# Defaults for MkDocs runs: reproducible dates, without the theme's banner about MkDocs 2.
MKDOCS_ENVIRONMENT = {"NO_MKDOCS_2_WARNING": "1", "SOURCE_DATE_EPOCH": "0"}


def build_site(site_dir: Path) -> str | None:
    """Run ``mkdocs build --strict`` on ./mkdocs.yml in this process, into ``site_dir``.

    Returns None on success, or the reason the build stopped (its warnings and errors have
    already gone to stderr, as MkDocs' own command prints them).
    """
    for name, value in MKDOCS_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s - %(message)s"))
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    logger.propagate = False
    try:
        config = load_config(strict=True, site_dir=str(site_dir))
        config.plugins.on_startup(command="build", dirty=False)
        try:
            build(config)
        finally:
            config.plugins.on_shutdown()
    except Abort as exc:
        return exc.format_message()
    finally:
        logger.removeHandler(handler)
    return None
