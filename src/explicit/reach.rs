//! The explicit engine on reachability properties: the shared breadth-first property
//! search ([`crate::space::properties`]) firing every enabled transition, so its witnesses
//! are shortest and a complete search decides every property.

use super::{ExplicitCounters, ExplicitOptions};
use crate::engine::{Budget, Counters, Observer, Report, Settings};
use crate::space::properties::{search_properties, FireAll, Order, PropertySearch};
use crate::system::net::NetSystem;
use crate::system::property::Property;
use crate::system::ModelError;

/// Answers `properties` on `sys` by a breadth-first search of its markings.
pub(crate) fn answer_properties(
    sys: &NetSystem<'_>,
    properties: &[Property],
    opts: &ExplicitOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    let how = PropertySearch {
        expansion: &mut FireAll,
        order: Order::Breadth,
        max_states: opts.max_states,
        engine: "explicit",
    };
    let explored = search_properties(sys, properties, how, budget, observer)?;
    let counters = ExplicitCounters {
        store: explored.store.clone(),
        expanded: explored.expanded,
        edges: explored.edges,
        ..ExplicitCounters::default()
    };
    Ok(explored.report(Counters::of(&counters), Settings::default()))
}
