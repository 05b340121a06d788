//! egg rewrite rule sets, one file per topic.
