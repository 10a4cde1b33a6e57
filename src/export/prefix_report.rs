//! Rendering of `qpor unfold`'s outcome: the complete (or stopped) prefix's statistics as
//! text and JSON.

use crate::unfold::cutoff::CutoffMode;
use crate::unfold::prefix::PrefixOutcome;
use serde_json::json;

/// The outcome as text: size of the prefix, why it stopped if it did, time and memory.
pub fn outcome_text(model: &str, out: &PrefixOutcome, cutoff: CutoffMode) -> String {
    let s = &out.stats;
    let mut t = format!(
        "{model}: {} prefix ({} unfolding, {} order)\n",
        if out.stopped.is_some() {
            "incomplete"
        } else {
            "complete"
        },
        out.backend,
        cutoff.name()
    );
    if out.repeated_label && cutoff == CutoffMode::Erv {
        t.push_str(&format!(
            "  a place holds two tokens: cutoffs only against smaller histories, as ERV's tie-break \
             is adequate on safe nets only{}\n",
            if out.started_over {
                " (built twice: the first build had used it)"
            } else {
                ""
            }
        ));
    }
    if let Some(why) = &out.stopped {
        t.push_str(&format!(
            "  stopped: {why} ({} possible extensions left)\n",
            s.pending
        ));
    }
    t.push_str(&format!(
        "  {} events ({} cutoffs), {} conditions\n  {:.3} s, {:.1} MB peak\n",
        s.events,
        s.cutoffs,
        s.conditions,
        s.seconds,
        s.peak_rss_bytes as f64 / 1e6
    ));
    t
}

/// The outcome as the documented JSON object.
pub fn outcome_json(model: &str, out: &PrefixOutcome, cutoff: CutoffMode) -> serde_json::Value {
    let s = &out.stats;
    json!({
        "model": model,
        "complete": out.stopped.is_none(),
        "stopped": out.stopped,
        "unfolding": out.backend,
        "cutoff": cutoff.name(),
        "events": s.events,
        "conditions": s.conditions,
        "cutoffs": s.cutoffs,
        "tokens_shared": out.repeated_label,
        "started_over": out.started_over,
        "pending": s.pending,
        "co_entries": s.co_entries,
        "seconds": s.seconds,
        "bytes": s.bytes,
        "peak_rss_bytes": s.peak_rss_bytes,
    })
}
