//! `conductor.store` in `.opencode/nso.json`: where the Conductor keeps its claims. `"files"`
//! (the default: `$CONDUCTOR_HOME`, one machine) or a PostgreSQL database shared by several
//! machines (`{"type": "postgres", ...}`). A password never belongs in this file (it is
//! committed with the project): it comes from the environment or a pgpass file, and a
//! password written here is an error that says where to put it instead.

use super::{ConfigError, Ctx};
use serde_json::Value;

/// A PostgreSQL claim store (`conductor.store` as an object). Unset connection fields fall
/// back to libpq's environment (`PGHOST`, `PGPORT`, `PGDATABASE`, `PGUSER`), as `psql` does.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PostgresStore {
    /// A `postgres://` or `postgresql://` URL without a password (`None`: the fields below).
    pub url: Option<String>,
    /// Server host name or address.
    pub host: Option<String>,
    /// Server port.
    pub port: Option<u16>,
    /// Database name.
    pub database: Option<String>,
    /// User name.
    pub user: Option<String>,
    /// The environment variable holding the password (`None`: `PGPASSWORD`, else the pgpass
    /// file `PGPASSFILE` or `~/.pgpass`).
    pub password_env: Option<String>,
    /// The database schema of NSO's tables (created by NSO if missing).
    pub schema: String,
    /// Which set of claims in the database: instances of one namespace see each other.
    pub namespace: String,
    /// The name under which this repository's paths are shared by every machine (claims
    /// inside the project are stored relative to it); `None`: the project folder's name.
    pub repository: Option<String>,
    /// TLS to the server (certificates checked against the system's authorities).
    pub ssl: bool,
    /// How long to wait for a connection before the store counts as unreachable.
    pub connect_timeout_ms: u64,
    /// Longest statement, lock wait included, before an operation fails.
    pub timeout_ms: u64,
}

impl Default for PostgresStore {
    fn default() -> Self {
        PostgresStore {
            url: None,
            host: None,
            port: None,
            database: None,
            user: None,
            password_env: None,
            schema: "public".to_string(),
            namespace: "default".to_string(),
            repository: None,
            ssl: false,
            connect_timeout_ms: 3_000,
            timeout_ms: 5_000,
        }
    }
}

/// The keys of a PostgreSQL store object.
pub(crate) const STORE_KEYS: [&str; 13] = [
    "type",
    "url",
    "host",
    "port",
    "database",
    "user",
    "passwordEnv",
    "schema",
    "namespace",
    "repository",
    "ssl",
    "connectTimeoutMs",
    "timeoutMs",
];

const P: &str = "conductor.store";

fn no_password(ctx: &Ctx, path: &str) -> ConfigError {
    ctx.error(
        "config_value",
        path,
        "a password does not belong in the config file (it is shared with the project)."
            .to_string(),
        "remove it and give the password in the environment (PGPASSWORD, or the variable named by \
         `conductor.store.passwordEnv`) or in a pgpass file (~/.pgpass or $PGPASSFILE, mode 600)."
            .to_string(),
    )
}

/// A name made of `[A-Za-z0-9_.-]` (a namespace or repository key, one path segment).
fn name(ctx: &Ctx, v: &Value, path: &str, sql_identifier: bool) -> Result<String, ConfigError> {
    let s = ctx.string(v, path)?;
    let ok = if sql_identifier {
        s.len() <= 63
            && s.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    } else {
        !s.is_empty()
            && s.len() <= 200
            && s != "."
            && s != ".."
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
    };
    if ok {
        return Ok(s.to_string());
    }
    let what = if sql_identifier {
        "lower-case letters, digits and `_`, starting with a letter or `_`, at most 63"
    } else {
        "letters, digits, `_`, `.` and `-`, at most 200"
    };
    Err(ctx.error(
        "config_value",
        path,
        format!("\"{s}\" is not a valid name here."),
        format!("use {what} characters."),
    ))
}

fn text(ctx: &Ctx, v: &Value, path: &str) -> Result<String, ConfigError> {
    let s = ctx.string(v, path)?;
    if s.trim().is_empty() {
        return Err(ctx.error(
            "config_value",
            path,
            "the value is empty.".to_string(),
            "give a value, or remove the key to use the default.".to_string(),
        ));
    }
    Ok(s.to_string())
}

/// Checks a connection URL: scheme, and no password in it (`user:secret@host`).
fn url(ctx: &Ctx, v: &Value) -> Result<String, ConfigError> {
    let path = format!("{P}.url");
    let s = text(ctx, v, &path)?;
    let Some(rest) = s
        .strip_prefix("postgres://")
        .or_else(|| s.strip_prefix("postgresql://"))
    else {
        return Err(ctx.error(
            "config_value",
            &path,
            "not a PostgreSQL URL.".to_string(),
            "write postgres://USER@HOST:PORT/DATABASE (without a password).".to_string(),
        ));
    };
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    let in_userinfo = authority
        .rsplit_once('@')
        .is_some_and(|(user, _)| user.contains(':'));
    let query = s.split_once('?').map_or("", |(_, q)| q);
    let in_query = query.split('&').any(|kv| {
        kv.split('=')
            .next()
            .unwrap_or("")
            .eq_ignore_ascii_case("password")
    });
    if in_userinfo || in_query {
        return Err(no_password(ctx, &path));
    }
    Ok(s)
}

/// Parses `conductor.store`: `None` for the files store, else the PostgreSQL settings.
pub(crate) fn parse(ctx: &Ctx, v: &Value) -> Result<Option<PostgresStore>, ConfigError> {
    if let Some(s) = v.as_str() {
        if s == "files" {
            return Ok(None);
        }
        return Err(ctx.error(
            "config_value",
            P,
            format!("`{s}` is not a claim store."),
            "use \"files\" (the default: $CONDUCTOR_HOME on this machine) or an object \
             {\"type\": \"postgres\", \"url\": \"postgres://USER@HOST:5432/DB\"}."
                .to_string(),
        ));
    }
    let o = v.as_object().ok_or_else(|| {
        ctx.type_error(P, "\"files\" or an object {\"type\": \"postgres\", ...}", v)
    })?;
    if o.contains_key("password") {
        return Err(no_password(ctx, &format!("{P}.password")));
    }
    ctx.known_keys(o, P, &STORE_KEYS)?;
    match o.get("type").map(|t| ctx.string(t, &format!("{P}.type"))) {
        Some(Ok("postgres")) => {}
        Some(Err(e)) => return Err(e),
        other => {
            let found = match other {
                Some(Ok(t)) => format!("`{t}` is not a store type."),
                _ => "the store type is missing.".to_string(),
            };
            return Err(ctx.error(
                "config_value",
                &format!("{P}.type"),
                found,
                "write \"type\": \"postgres\" (or use \"store\": \"files\").".to_string(),
            ));
        }
    }
    let mut store = PostgresStore::default();
    let at = |k: &str| format!("{P}.{k}");
    if let Some(v) = o.get("url") {
        store.url = Some(url(ctx, v)?);
    }
    if let Some(v) = o.get("host") {
        store.host = Some(text(ctx, v, &at("host"))?);
    }
    if let Some(v) = o.get("port") {
        store.port = Some(ctx.positive(v, &at("port"), 65_535)? as u16);
    }
    if let Some(v) = o.get("database") {
        store.database = Some(text(ctx, v, &at("database"))?);
    }
    if let Some(v) = o.get("user") {
        store.user = Some(text(ctx, v, &at("user"))?);
    }
    if let Some(v) = o.get("passwordEnv") {
        let s = ctx.string(v, &at("passwordEnv"))?;
        let valid = s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(ctx.error(
                "config_value",
                &at("passwordEnv"),
                format!("\"{s}\" is not an environment variable name."),
                "name the variable that holds the password (e.g. NSO_CONDUCTOR_PASSWORD), not \
                 the password itself."
                    .to_string(),
            ));
        }
        store.password_env = Some(s.to_string());
    }
    if let Some(v) = o.get("schema") {
        store.schema = name(ctx, v, &at("schema"), true)?;
    }
    if let Some(v) = o.get("namespace") {
        store.namespace = name(ctx, v, &at("namespace"), false)?;
    }
    if let Some(v) = o.get("repository") {
        store.repository = Some(name(ctx, v, &at("repository"), false)?);
    }
    if let Some(v) = o.get("ssl") {
        store.ssl = ctx.boolean(v, &at("ssl"))?;
    }
    if let Some(v) = o.get("connectTimeoutMs") {
        store.connect_timeout_ms = ctx.positive(v, &at("connectTimeoutMs"), 60_000)?;
    }
    if let Some(v) = o.get("timeoutMs") {
        store.timeout_ms = ctx.positive(v, &at("timeoutMs"), 600_000)?;
    }
    Ok(Some(store))
}

#[cfg(test)]
mod tests {
    use super::super::{parse as parse_config, Config};
    use super::*;

    const FILE: &str = ".opencode/nso.json";

    fn store(json: &str) -> Result<Option<PostgresStore>, crate::config::ConfigError> {
        parse_config(
            FILE,
            Some(&format!("{{\"conductor\": {{\"store\": {json}}}}}")),
        )
        .map(|c: Config| c.conductor.store)
    }

    fn problem(json: &str) -> (String, String, String, String) {
        let e = store(json).unwrap_err();
        (e.code.to_string(), e.path, e.problem, e.fix)
    }

    #[test]
    fn files_is_the_default_and_a_spelled_out_choice() {
        assert_eq!(
            parse_config(FILE, Some("{}")).unwrap().conductor.store,
            None
        );
        assert_eq!(store("\"files\"").unwrap(), None);
        let (code, path, what, fix) = problem("\"postgres\"");
        assert_eq!(
            (code.as_str(), path.as_str()),
            ("config_value", "conductor.store")
        );
        assert_eq!(what, "`postgres` is not a claim store.");
        assert!(fix.contains("{\"type\": \"postgres\""), "{fix}");
        assert_eq!(problem("3").0, "config_type");
    }

    #[test]
    fn a_complete_postgres_store_and_its_defaults() {
        let s = store(
            r#"{"type": "postgres", "url": "postgresql://nso@db.internal:5432/conductor?sslmode=require",
                "passwordEnv": "NSO_PG_PASSWORD", "schema": "nso", "namespace": "team-a",
                "repository": "shop.web", "ssl": true, "connectTimeoutMs": 2000, "timeoutMs": 4000}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            s.url.as_deref(),
            Some("postgresql://nso@db.internal:5432/conductor?sslmode=require")
        );
        assert_eq!(s.password_env.as_deref(), Some("NSO_PG_PASSWORD"));
        assert_eq!((s.schema.as_str(), s.namespace.as_str()), ("nso", "team-a"));
        assert_eq!(s.repository.as_deref(), Some("shop.web"));
        assert_eq!(
            (s.ssl, s.connect_timeout_ms, s.timeout_ms),
            (true, 2000, 4000)
        );
        let d = store(r#"{"type": "postgres", "host": "127.0.0.1", "port": 5433, "database": "c", "user": "u"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(
            (
                d.host.as_deref(),
                d.port,
                d.database.as_deref(),
                d.user.as_deref()
            ),
            (Some("127.0.0.1"), Some(5433), Some("c"), Some("u"))
        );
        assert_eq!(
            (d.schema.as_str(), d.namespace.as_str()),
            ("public", "default")
        );
        assert_eq!(
            (d.ssl, d.connect_timeout_ms, d.timeout_ms, d.url),
            (false, 3000, 5000, None)
        );
    }

    #[test]
    fn a_password_in_the_config_is_refused_with_where_it_goes() {
        for (json, path) in [
            (
                r#"{"type": "postgres", "password": "hunter2"}"#,
                "conductor.store.password",
            ),
            (
                r#"{"type": "postgres", "url": "postgres://nso:hunter2@db/c"}"#,
                "conductor.store.url",
            ),
            (
                r#"{"type": "postgres", "url": "postgres://db/c?user=nso&password=hunter2"}"#,
                "conductor.store.url",
            ),
        ] {
            let (code, p, what, fix) = problem(json);
            assert_eq!(
                (code.as_str(), p.as_str()),
                ("config_value", path),
                "{json}"
            );
            assert!(
                what.contains("a password does not belong in the config file"),
                "{what}"
            );
            assert!(
                fix.contains("PGPASSWORD") && fix.contains("~/.pgpass"),
                "{fix}"
            );
            assert!(
                !what.contains("hunter2") && !fix.contains("hunter2"),
                "the secret is not repeated"
            );
        }
        // A user name with an @ in the host part, and no colon, is not a password.
        assert!(store(r#"{"type": "postgres", "url": "postgres://nso@db:5432/c"}"#).is_ok());
    }

    #[test]
    fn wrong_values_name_the_key_and_the_fix() {
        let cases = [
            (
                r#"{"url": "postgres://db/c"}"#,
                "conductor.store.type",
                "the store type is missing.",
            ),
            (
                r#"{"type": "mysql"}"#,
                "conductor.store.type",
                "`mysql` is not a store type.",
            ),
            (
                r#"{"type": "postgres", "url": "mysql://db/c"}"#,
                "conductor.store.url",
                "not a PostgreSQL URL.",
            ),
            (
                r#"{"type": "postgres", "passwordEnv": "s3cr3t!"}"#,
                "conductor.store.passwordEnv",
                "\"s3cr3t!\" is not an environment variable name.",
            ),
            (
                r#"{"type": "postgres", "schema": "Nso-Tables"}"#,
                "conductor.store.schema",
                "\"Nso-Tables\" is not a valid name here.",
            ),
            (
                r#"{"type": "postgres", "namespace": "a/b"}"#,
                "conductor.store.namespace",
                "\"a/b\" is not a valid name here.",
            ),
            (
                r#"{"type": "postgres", "repository": ".."}"#,
                "conductor.store.repository",
                "\"..\" is not a valid name here.",
            ),
            (
                r#"{"type": "postgres", "host": " "}"#,
                "conductor.store.host",
                "the value is empty.",
            ),
        ];
        for (json, path, what) in cases {
            let (_, p, w, _) = problem(json);
            assert_eq!((p.as_str(), w.as_str()), (path, what), "{json}");
        }
        let (code, p, _, fix) = problem(r#"{"type": "postgres", "hots": "db"}"#);
        assert_eq!(
            (code.as_str(), p.as_str()),
            ("config_unknown_key", "conductor.store.hots")
        );
        assert!(fix.starts_with("did you mean `host`?"), "{fix}");
        let (code, p, _, _) = problem(r#"{"type": "postgres", "port": 70000}"#);
        assert_eq!(
            (code.as_str(), p.as_str()),
            ("config_type", "conductor.store.port")
        );
    }

    #[test]
    fn the_schema_describes_the_same_store() {
        let schema: Value = serde_json::from_str(crate::config::schema_tests::SCHEMA).unwrap();
        let conductor = &schema["properties"]["conductor"];
        let store = &conductor["properties"]["store"];
        let object = store["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["type"] == "object")
            .unwrap();
        assert_eq!(
            crate::config::schema_tests::keys(object),
            crate::config::schema_tests::sorted(&STORE_KEYS)
        );
        let d = PostgresStore::default();
        let props = &object["properties"];
        assert_eq!(props["schema"]["default"], d.schema);
        assert_eq!(props["namespace"]["default"], d.namespace);
        assert_eq!(props["connectTimeoutMs"]["default"], d.connect_timeout_ms);
        assert_eq!(props["timeoutMs"]["default"], d.timeout_ms);
        assert_eq!(store["default"], "files");
    }
}
