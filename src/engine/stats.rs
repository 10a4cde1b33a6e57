//! What a run cost and counted: the engine's counters, time and memory.

use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};

/// Counters and resources of a run. In JSON one flat object: the engine's counters, then
/// `seconds` and `peak_rss_bytes`.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Stats {
    /// The engine's own counters.
    #[serde(flatten)]
    pub counters: Counters,
    /// Wall-clock time of the exploration, in seconds.
    pub seconds: f64,
    /// Peak resident memory of the process, in bytes (0 where the OS does not say).
    pub peak_rss_bytes: u64,
}

impl Stats {
    /// The stats of a run that counted `counters` in `seconds`, with the process's peak
    /// memory so far.
    pub fn new(counters: Counters, seconds: f64) -> Stats {
        Stats {
            counters,
            seconds,
            peak_rss_bytes: peak_rss_bytes(),
        }
    }

    /// The counter called `name` (its JSON name), if the engine reports it.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.counters.get(name)
    }
}

/// An engine's counters, as its report carries them. Each engine counts in a struct of
/// its own, defined beside it (e.g. `qpor::QporCounters`), and hands it over with
/// [`Counters::of`]: this shared layer knows no engine's counters, and text and JSON read
/// the same (name, value) list, in the struct's field order. [`Counters::typed`] gives a
/// caller the engine's struct back.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Counters {
    /// (JSON name, value), in the order of the engine's struct.
    entries: Vec<(String, u64)>,
}

impl Counters {
    /// The counters of `section`, an engine's counter struct whose fields serialise as
    /// whole numbers (fields skipped by serde, e.g. absent options, are left out).
    pub fn of<T: Serialize>(section: &T) -> Counters {
        // serde_json keeps field order (the `preserve_order` feature).
        let entries = match serde_json::to_value(section) {
            Ok(serde_json::Value::Object(m)) => m
                .into_iter()
                .filter_map(|(k, v)| Some((k, v.as_u64()?)))
                .collect(),
            _ => Vec::new(),
        };
        Counters { entries }
    }

    /// The counters as (JSON name, value) pairs, in report order.
    pub fn list(&self) -> Vec<(String, u64)> {
        self.entries.clone()
    }

    /// The counter called `name` (its JSON name), if the engine reports it.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// The engine's own counter struct, if these are its counters.
    pub fn typed<T: DeserializeOwned>(&self) -> Option<T> {
        let map: serde_json::Map<String, serde_json::Value> = self
            .entries
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::from(*v)))
            .collect();
        serde_json::from_value(serde_json::Value::Object(map)).ok()
    }

    /// Changes the counters through the engine's struct (an engine adding what a later
    /// phase counted); nothing happens if these are not `T`'s counters.
    pub fn update<T: Serialize + DeserializeOwned>(&mut self, change: impl FnOnce(&mut T)) {
        if let Some(mut section) = self.typed::<T>() {
            change(&mut section);
            *self = Counters::of(&section);
        }
    }
}

impl Serialize for Counters {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.entries.iter().map(|(k, v)| (k, v)))
    }
}

/// Resident memory of this process now, in bytes (Linux `VmRSS`), 0 if unknown.
pub fn current_rss_bytes() -> u64 {
    proc_status_bytes("VmRSS:")
}

/// Peak resident memory of this process in bytes (Linux `VmHWM`), 0 if unknown.
pub fn peak_rss_bytes() -> u64 {
    proc_status_bytes("VmHWM:")
}

/// A `kB` field of `/proc/self/status`, in bytes.
fn proc_status_bytes(field: &str) -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// An engine's counters, as an engine would define them.
    #[derive(Clone, PartialEq, Debug, Default, Serialize, Deserialize)]
    struct Probe {
        zebras: u64,
        apples: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        tasks: Option<u64>,
    }

    /// Another engine's counters.
    #[derive(Clone, PartialEq, Debug, Default, Serialize, Deserialize)]
    struct Other {
        states: u64,
    }

    #[test]
    fn counters_keep_the_engines_field_order_and_come_back_typed() {
        let probe = Probe {
            zebras: 3,
            apples: 1,
            tasks: None,
        };
        let counters = Counters::of(&probe);
        let names: Vec<String> = counters.list().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["zebras", "apples"]);
        assert_eq!(counters.get("apples"), Some(1));
        assert_eq!(counters.typed::<Probe>(), Some(probe));
        assert_eq!(counters.typed::<Other>(), None, "another engine's struct");
        assert_eq!(
            serde_json::to_string(&counters).unwrap(),
            r#"{"zebras":3,"apples":1}"#
        );
    }

    #[test]
    fn an_update_goes_through_the_engines_struct() {
        let mut counters = Counters::of(&Probe::default());
        counters.update(|p: &mut Probe| p.tasks = Some(7));
        assert_eq!(counters.get("tasks"), Some(7));
        let before = counters.clone();
        counters.update(|o: &mut Other| o.states = 1);
        assert_eq!(counters, before, "not the store's counters: unchanged");
    }
}
