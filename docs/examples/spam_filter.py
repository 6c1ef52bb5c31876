"""The spam filter's library: a SQLite token store trained on labelled mail, then
Robinson/Fisher scores for new messages (the command line is `nbayes spam`)."""

import tempfile
from pathlib import Path

from nbayes.spam import (
    MailItem,
    ScoreSettings,
    TokenStore,
    interleave,
    score_tokens,
    tokenize,
    train,
)


def mail(subject: str, body: str) -> bytes:
    return f"From: someone@example.com\nSubject: {subject}\n\n{body}\n".encode()


spam = [
    mail("You have WON a prize", "Claim your free prize now, click http://win.example.biz"),
    mail("Cheap meds online", "Best prices on pills, no prescription, click now"),
    mail("Free money waiting", "Claim the money now: send your bank details"),
    mail("Winner! Claim now", "You are our lucky winner, click to claim your free cash"),
]
ham = [
    mail("Minutes of Tuesday's meeting", "Attached are the minutes; next meeting on Friday."),
    mail("Lunch?", "Shall we have lunch on Friday after the meeting with the team?"),
    mail("Draft of the report", "Please read the draft report before our meeting."),
    mail("Train times", "The train leaves at 9; see you at the station on Friday."),
]

with tempfile.TemporaryDirectory() as folder, TokenStore(Path(folder) / "tokens.db") as store:
    items = [[MailItem(f"{kind}{i}", raw) for i, raw in enumerate(group)]
             for kind, group in (("spam", spam), ("ham", ham))]
    report = train(store, interleave(*items))
    print("learnt:", report.learnt)

    settings = ScoreSettings()  # Fisher's method, s = 0.1, x = 0.52, cutoffs 0.2 / 0.9
    # Four messages of each class are too few to be sure of anything: until a filter
    # has learnt `maturity` (50) of each, its log-odds are scaled by the share it has
    # (4 / 50 here), so it says Unsure more. maturity=0 takes the scores as they are.
    untempered = settings.replace(maturity=0)  # settings are immutable: a changed copy
    new = {
        "prize": mail("Claim your free prize", "click now to claim the prize money"),
        "meeting": mail("Friday meeting", "the report draft for the meeting on Friday"),
    }
    token_sets = [tokenize(raw) for raw in new.values()]
    scores = score_tokens(store, token_sets, settings)
    raw_scores = score_tokens(store, token_sets, untempered)
    for name, score, raw in zip(new, scores, raw_scores, strict=True):
        print(
            f"{name:<8} score {score:.3f}  {settings.verdict(score):<7}"
            f"  untempered {raw:.3f}  {settings.verdict(raw)}"
        )
