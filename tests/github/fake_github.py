"""A stateful fake of GitHub's REST and GraphQL API, served over real HTTP on 127.0.0.1.

The ``github`` backend's client runs against it unchanged. It holds one repository
(``owner``/``repo``) and answers like GitHub does: a token in ``Authorization`` (``Bearer`` or
``token``) or 401 ``Bad credentials``; 404 ``Not Found`` for other repositories and unknown
routes; ``Link: rel="next"`` pagination with ``per_page`` (default 30, max 100) and ``page``;
422 ``Validation Failed`` with an ``errors`` list for invalid writes. Lists are newest first
where GitHub's are (issues, pulls, releases, runs), oldest first otherwise (comments, reviews).

GraphQL (``POST /graphql``) recognises operations by name (or, for an anonymous operation, by
its root field); arguments come from ``variables`` or from literals in the query text:

- ``query PullRequestReviewThreads`` — ``repository(owner, name) { pullRequest(number) {
  reviewThreads(first, after) { nodes {...} pageInfo totalCount } } }``. Every thread node has
  id, isResolved, isOutdated, path, line, startLine, diffSide, subjectType, viewerCanReply,
  viewerCanResolve, viewerCanUnresolve, resolvedBy{login} and comments{nodes{id databaseId
  body author{login} createdAt url path line} totalCount}, whatever the selection asks.
- ``mutation ResolveReviewThread`` / ``mutation UnresolveReviewThread`` — ``threadId``;
  answers ``{resolveReviewThread|unresolveReviewThread: {thread: <node>}}``.
- ``query Viewer`` — ``{viewer: {login}}``.

An unknown operation answers 200 with ``errors``; a missing repository or pull request answers
``data`` with ``null`` there and an error of type ``NOT_FOUND``.

Tests seed it with the ``add_*`` helpers (each returns the REST JSON of what it created) and
inspect its state directly: ``issues`` (number -> issue, pull requests' issue side included),
``pulls``, ``releases`` (id -> release), ``labels`` (name -> label), ``refs`` (``refs/heads/x``
-> sha; the repository starts with its default branch on a root commit), ``trees`` (commit sha
-> {path: blob sha}), ``comments``/``reviews``/``review_comments``/``threads`` (number -> list),
``runs``, ``jobs`` (run id -> list), ``check_runs`` and ``requests`` ((method, path) in order).
REST routes are in :mod:`tests.github.fake_github_rest`, GraphQL in
:mod:`tests.github.fake_github_graphql`.

Deliberate simplifications: a pull request is never merged here; review comments are not
checked against a diff (their ``commit_id`` must be a known commit); a draft release gets its
tag when it is published (as on GitHub); deleting a pull request's head branch closes it.
"""

from __future__ import annotations

import copy
import hashlib
import http
import json
import re
import threading
import urllib.parse
import zlib
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.github.fake_github_graphql import answer_graphql
from tests.github.fake_github_rest import (
    JSON,
    ROUTES,
    Answer,
    Call,
    Reply,
    invalid,
    unprocessable,
)

_EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


class FakeGitHub:
    """One fake repository behind GitHub's API; see the module docstring."""

    def __init__(
        self,
        *,
        token: str,
        login: str = "bench-bot",
        scopes: str = "repo, workflow",
        owner: str = "acme",
        repo: str = "fixtures",
        default_branch: str = "main",
    ) -> None:
        self.token, self.login, self.scopes = token, login, scopes
        self.owner, self.repo, self.default_branch = owner, repo, default_branch
        self.url = ""
        self.requests: list[tuple[str, str]] = []
        self.issues: dict[int, JSON] = {}
        self.pulls: dict[int, JSON] = {}
        self.releases: dict[int, JSON] = {}
        self.labels: dict[str, JSON] = {}
        root = self._sha("root")
        self.refs: dict[str, str] = {f"refs/heads/{default_branch}": root}
        self.trees: dict[str, dict[str, str]] = {root: {}}  # commit sha -> {path: blob sha}
        self.comments: dict[int, list[JSON]] = {}
        self.reviews: dict[int, list[JSON]] = {}
        self.review_comments: dict[int, list[JSON]] = {}
        self.threads: dict[int, list[JSON]] = {}
        self.runs: dict[int, JSON] = {}
        self.jobs: dict[int, list[JSON]] = {}
        self.check_runs: list[JSON] = []
        self._failures: list[tuple[int, dict[str, str]]] = []
        self._lock = threading.RLock()
        self._counter = 1000
        self._ticks = 0
        self._numbers = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle

    def start(self) -> FakeGitHub:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def fail_next(
        self, count: int, status: int = 429, headers: dict[str, str] | None = None
    ) -> None:
        """Answer the next ``count`` requests with ``status`` (and these headers)."""
        with self._lock:
            self._failures.extend([(status, dict(headers or {}))] * count)

    # ------------------------------------------------------------ small helpers

    @property
    def html(self) -> str:
        return f"https://github.com/{self.owner}/{self.repo}"

    def _id(self) -> int:
        self._counter += 1
        return self._counter

    def _now(self) -> str:
        self._ticks += 1
        return (_EPOCH + timedelta(minutes=self._ticks)).strftime("%Y-%m-%dT%H:%M:%SZ")

    def _sha(self, *parts: object) -> str:
        return hashlib.sha1(":".join(map(str, parts)).encode()).hexdigest()

    def _user(self, login: str | None) -> JSON:
        name = login or self.login
        return {"login": name, "id": zlib.crc32(name.encode()), "type": "User"}

    def _head(self, branch: str | None = None) -> str:
        return self.refs[f"refs/heads/{branch or self.default_branch}"]

    def _label(self, name: str, color: str = "ededed", description: str = "") -> JSON:
        found = next((v for k, v in self.labels.items() if k.casefold() == name.casefold()), None)
        if found is None:
            number = self._id()
            found = {"id": number, "node_id": f"LA_kw{number}", "name": name}
            found.update(color=color, description=description or None, default=False)
            self.labels[name] = found
        return found

    def _page(self, call: Call, items: Sequence[Any]) -> tuple[list[Any], dict[str, str]]:
        try:
            per_page = min(max(int(call.params.get("per_page", 30)), 1), 100)
            page = max(int(call.params.get("page", 1)), 1)
        except ValueError:
            per_page, page = 30, 1
        chunk = list(items[(page - 1) * per_page : page * per_page])
        headers: dict[str, str] = {}
        last = max((len(items) + per_page - 1) // per_page, 1)
        if page < last:
            base = f"{self.url}/repos/{self.owner}/{self.repo}{call.path}?"
            link = {**call.params, "per_page": str(per_page)}
            nxt = urllib.parse.urlencode({**link, "page": str(page + 1)})
            end = urllib.parse.urlencode({**link, "page": str(last)})
            headers["Link"] = f'<{base}{nxt}>; rel="next", <{base}{end}>; rel="last"'
        return copy.deepcopy(chunk), headers

    def _listed(self, call: Call, items: Sequence[Any], key: str | None = None) -> Answer:
        chunk, headers = self._page(call, items)
        return 200, (chunk if key is None else {"total_count": len(items), key: chunk}), headers

    def _found(self, table: dict[int, JSON], key: int) -> JSON:
        if key not in table:
            raise Reply(404, "Not Found")
        return table[key]

    # ------------------------------------------------------------ seeding helpers

    def add_issue(
        self,
        title: str,
        *,
        body: str = "",
        labels: Sequence[str] = (),
        state: str = "open",
        author: str | None = None,
    ) -> JSON:
        with self._lock:
            issue = self._new_issue(title, body, labels, author)
            if state == "closed":
                issue.update(state="closed", state_reason="completed", closed_at=self._now())
            return copy.deepcopy(issue)

    def _new_issue(self, title: str, body: str, labels: Sequence[str], author: str | None) -> JSON:
        self._numbers += 1
        number, now = self._numbers, self._now()
        issue = {"id": self._id(), "node_id": f"I_kw{number:04d}", "number": number}
        issue.update(title=title, body=body or None, state="open", state_reason=None)
        issue.update(labels=[self._label(name) for name in labels], assignees=[], milestone=None)
        issue.update(user=self._user(author), comments=0, html_url=f"{self.html}/issues/{number}")
        issue.update(created_at=now, updated_at=now, closed_at=None)
        self.issues[number] = issue
        self.comments[number] = []
        return issue

    def add_issue_comment(self, number: int, body: str, *, author: str | None = None) -> JSON:
        with self._lock:
            issue = self.issues[number]
            comment_id, now = self._id(), self._now()
            comment = {"id": comment_id, "node_id": f"IC_kw{comment_id}", "body": body}
            comment.update(user=self._user(author), created_at=now, updated_at=now)
            comment["html_url"] = f"{issue['html_url']}#issuecomment-{comment_id}"
            self.comments[number].append(comment)
            issue["comments"] += 1
            issue["updated_at"] = now
            return copy.deepcopy(comment)

    def add_pull(
        self,
        title: str,
        *,
        head: str,
        base: str | None = None,
        body: str = "",
        author: str | None = None,
    ) -> JSON:
        with self._lock:
            try:
                return copy.deepcopy(self._new_pull(title, head, base, body, author))
            except Reply as exc:
                raise ValueError(f"cannot add pull request {title!r}: {exc}") from None

    def _new_pull(
        self, title: str, head: str, base: str | None, body: str, author: str | None
    ) -> JSON:
        head = head.split(":", 1)[-1]
        base = base or self.default_branch
        for field, branch in (("head", head), ("base", base)):
            if f"refs/heads/{branch}" not in self.refs:
                raise invalid("PullRequest", field, "invalid")
        if head == base:
            raise unprocessable(f"No commits between {base} and {head}")
        if any(p["head"]["ref"] == head and p["state"] == "open" for p in self.pulls.values()):
            raise unprocessable(f"A pull request already exists for {self.owner}:{head}.")
        issue = self._new_issue(title, body, (), author)
        number = issue["number"]
        pull_html = f"{self.html}/pull/{number}"
        issue["html_url"] = pull_html
        issue["pull_request"] = {"html_url": pull_html, "merged_at": None}
        pull = {"id": self._id(), "node_id": f"PR_kw{number:04d}", "number": number}
        pull.update(title=title, body=body or None, state="open", draft=False, merged=False)
        pull.update(html_url=pull_html, user=issue["user"], labels=[], merged_at=None)
        pull["head"] = {"ref": head, "sha": self._head(head), "label": f"{self.owner}:{head}"}
        pull["base"] = {"ref": base, "sha": self._head(base), "label": f"{self.owner}:{base}"}
        pull.update(created_at=issue["created_at"], updated_at=issue["created_at"], closed_at=None)
        self.pulls[number] = pull
        self.reviews[number], self.review_comments[number], self.threads[number] = [], [], []
        return pull

    def add_review(
        self, number: int, *, state: str = "COMMENTED", body: str = "", author: str = "reviewer"
    ) -> JSON:
        with self._lock:
            return copy.deepcopy(self._new_review(self.pulls[number], state, body, author))

    def _new_review(self, pull: JSON, state: str, body: str, author: str) -> JSON:
        review_id = self._id()
        review = {"id": review_id, "node_id": f"PRR_kw{review_id}", "user": self._user(author)}
        review.update(body=body, state=state, commit_id=pull["head"]["sha"])
        review["html_url"] = f"{pull['html_url']}#pullrequestreview-{review_id}"
        review["submitted_at"] = None if state == "PENDING" else self._now()
        self.reviews[pull["number"]].append(review)
        return review

    def add_review_thread(
        self,
        number: int,
        *,
        path: str,
        line: int,
        body: str,
        author: str = "reviewer",
        resolved: bool = False,
        outdated: bool = False,
    ) -> str:
        with self._lock:
            pull = self.pulls[number]
            comment = self._new_review_comment(pull, body, author, path, line, "RIGHT")
            thread = self._new_thread(pull, comment)
            thread.update(isResolved=resolved, isOutdated=outdated)
            thread["resolvedBy"] = author if resolved else None
            return str(thread["id"])

    def _new_review_comment(
        self, pull: JSON, body: str, author: str | None, path: str, line: int | None, side: str
    ) -> JSON:
        comment_id, now = self._id(), self._now()
        comment = {"id": comment_id, "node_id": f"PRRC_kw{comment_id}", "body": body}
        comment.update(user=self._user(author), path=path, line=line, original_line=line)
        comment.update(side=side, start_line=None, commit_id=pull["head"]["sha"])
        comment.update(pull_request_review_id=None, created_at=now, updated_at=now)
        comment["html_url"] = f"{pull['html_url']}#discussion_r{comment_id}"
        self.review_comments[pull["number"]].append(comment)
        return comment

    def _new_thread(self, pull: JSON, comment: JSON) -> JSON:
        thread = {"id": f"PRRT_kw{comment['id']}", "isResolved": False, "isOutdated": False}
        thread.update(path=comment["path"], line=comment["line"], startLine=None)
        thread.update(diffSide=comment["side"], resolvedBy=None, comment_ids=[comment["id"]])
        self.threads[pull["number"]].append(thread)
        return thread

    def add_release(
        self,
        tag_name: str,
        *,
        name: str = "",
        body: str = "",
        draft: bool = False,
        prerelease: bool = False,
    ) -> JSON:
        with self._lock:
            fields: JSON = {"tag_name": tag_name, "name": name, "body": body}
            fields.update(draft=draft, prerelease=prerelease)
            return copy.deepcopy(self._new_release(fields))

    def _new_release(self, fields: JSON) -> JSON:
        release_id = self._id()
        release = {"id": release_id, "node_id": f"RE_kw{release_id}"}
        release.update(tag_name=fields["tag_name"], name=fields.get("name") or None)
        release.update(body=fields.get("body") or None, draft=bool(fields.get("draft")))
        release.update(prerelease=bool(fields.get("prerelease")), author=self._user(None))
        release["target_commitish"] = fields.get("target_commitish") or self.default_branch
        release.update(created_at=self._now(), published_at=None, assets=[])
        self.releases[release_id] = release
        if not release["draft"]:
            self._publish(release)
        self._release_url(release)
        return release

    def _publish(self, release: JSON) -> None:
        release["draft"], release["published_at"] = False, self._now()
        tag_ref = f"refs/tags/{release['tag_name']}"
        target = str(release["target_commitish"])
        if tag_ref not in self.refs:
            self.refs[tag_ref] = self.refs.get(f"refs/heads/{target}", target)

    def _release_url(self, release: JSON) -> None:
        tag = release["tag_name"]
        if release["draft"]:
            tag = "untagged-" + self._sha(release["id"])[:20]
        release["html_url"] = f"{self.html}/releases/tag/{tag}"

    def add_workflow_run(
        self,
        *,
        name: str = "CI",
        status: str = "completed",
        conclusion: str | None = "success",
        head_sha: str | None = None,
    ) -> JSON:
        with self._lock:
            run_id, now = self._id(), self._now()
            run = {"id": run_id, "node_id": f"WFR_kw{run_id}", "name": name, "display_title": name}
            run.update(status=status, conclusion=conclusion, event="push", workflow_id=1)
            run.update(head_branch=self.default_branch, head_sha=head_sha or self._head())
            run.update(run_number=len(self.runs) + 1, run_attempt=1, run_started_at=now)
            run.update(
                html_url=f"{self.html}/actions/runs/{run_id}", created_at=now, updated_at=now
            )
            self.runs[run_id] = run
            self.jobs[run_id] = []
            return copy.deepcopy(run)

    def add_job(
        self,
        run_id: int,
        *,
        name: str = "build",
        status: str = "completed",
        conclusion: str | None = "success",
    ) -> JSON:
        with self._lock:
            run = self.runs[run_id]
            job_id, now = self._id(), self._now()
            job = {"id": job_id, "node_id": f"CR_kw{job_id}", "run_id": run_id, "name": name}
            job.update(status=status, conclusion=conclusion, head_sha=run["head_sha"])
            job.update(started_at=now, completed_at=now if status == "completed" else None)
            job.update(run_attempt=run["run_attempt"], html_url=f"{run['html_url']}/job/{job_id}")
            self.jobs[run_id].append(job)
            return copy.deepcopy(job)

    def add_check_run(
        self,
        head_sha: str,
        *,
        name: str = "lint",
        status: str = "completed",
        conclusion: str | None = "success",
    ) -> JSON:
        with self._lock:
            check_id, now = self._id(), self._now()
            check = {"id": check_id, "node_id": f"CR_kw{check_id}", "head_sha": head_sha}
            check.update(name=name, status=status, conclusion=conclusion, started_at=now)
            check.update(completed_at=now if status == "completed" else None)
            check.update(html_url=f"{self.html}/runs/{check_id}", app={"slug": "github-actions"})
            self.check_runs.append(check)
            return copy.deepcopy(check)

    # ------------------------------------------------------------ dispatch

    def handle(self, method: str, raw_path: str, auth: str, raw_body: bytes) -> Answer:
        """The answer to one HTTP request (called by the server thread)."""
        split = urllib.parse.urlsplit(raw_path)
        path = urllib.parse.unquote(split.path)
        params = dict(urllib.parse.parse_qsl(split.query))
        with self._lock:
            self.requests.append((method, path))
            if self._failures:
                status, headers = self._failures.pop(0)
                return status, {"message": _failure_message(status, headers)}, headers
            if auth not in (f"Bearer {self.token}", f"token {self.token}"):
                docs = "https://docs.github.com/rest"
                return 401, {"message": "Bad credentials", "documentation_url": docs}, {}
            try:
                body = json.loads(raw_body) if raw_body else None
            except ValueError:
                return 400, {"message": "Problems parsing JSON"}, {}
            try:
                return self._route(method, path, params, body)
            except Reply as reply:
                return reply.status, reply.payload, {}

    def _route(self, method: str, path: str, params: dict[str, str], body: Any) -> Answer:
        if (method, path) == ("GET", "/user"):
            return 200, self._user(None), {"X-OAuth-Scopes": self.scopes}
        if (method, path) == ("POST", "/graphql"):
            return 200, answer_graphql(self, body if isinstance(body, dict) else {}), {}
        match = re.fullmatch(r"/repos/([^/]+)/([^/]+)(/.*)?", path)
        if match is None or (match[1].casefold(), match[2].casefold()) != (
            self.owner.casefold(),
            self.repo.casefold(),
        ):
            raise Reply(404, "Not Found")
        call = Call(match[3] or "", params, body)
        for verb, pattern, handler in ROUTES:
            found = pattern.fullmatch(call.path)
            if found is not None and verb == method:
                call.groups = found.groups()
                return handler(self, call)
        raise Reply(404, "Not Found")


def _failure_message(status: int, headers: dict[str, str]) -> str:
    if status == 429 or (status == 403 and headers.get("X-RateLimit-Remaining") == "0"):
        return "API rate limit exceeded for user ID 1."
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return f"HTTP {status}"


class _Handler(BaseHTTPRequestHandler):
    """Hands every request to :meth:`FakeGitHub.handle` and writes its JSON answer."""

    fake: FakeGitHub

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        auth = self.headers.get("Authorization") or ""
        status, payload, headers = self.fake.handle(self.command, self.path, auth, raw)
        data = b"" if status == 204 or payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read :attr:`FakeGitHub.requests` instead."""
