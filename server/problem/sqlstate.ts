// The one table mapping a PostgreSQL SQLSTATE to an HTTP status (PostgREST's mapSQLtoHTTP): exact
// codes first, then classes. PTnnn are our own refusals, raised by the api.* functions on purpose.

/** lock_not_available: a lock not granted within lock_timeout. */
export const LOCK_NOT_AVAILABLE = '55P03';
/** deadlock_detected and serialization_failure: the transaction was rolled back, and may run again. */
export const DEADLOCK_DETECTED = '40P01';
export const SERIALIZATION_FAILURE = '40001';
/** query_canceled: a statement timeout, or a cancel request. */
export const QUERY_CANCELED = '57014';

/** The connection closed under a statement (Node's and postgres.js's codes). */
const CLOSED = ['ECONNRESET', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED'];
/** No connection to the database: none could be made, or the one in use closed. */
export const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'CONNECT_TIMEOUT', ...CLOSED]);
/** The connection went away under a statement: closed, or ended by the server (57P01 admin_shutdown, 57P02 crash_shutdown). */
export const CONNECTION_LOST = new Set(['57P01', '57P02', ...CLOSED]);

/** HTTP status for `sqlstate`; `anonymous` splits insufficient_privilege into 401 and 403. */
export function statusFor(sqlstate: string, anonymous: boolean): number {
  switch (sqlstate) {
    case 'PT400': return 400; // refusal: bad request (readOnly supplied, immutable changed, primary key)
    case 'PT401': return 401; // refusal: anonymous caller and no scenario passes
    case 'PT403': return 403; // refusal: no scenario passes, or the record fails the winner
    case 'PT404': return 404; // refusal: no such record or parent
    case 'PT409': return 409; // refusal: body version lock matched no row
    case 'PT412': return 412; // refusal: If-Match / If-Unmodified-Since precondition failed
    case 'PT413': return 413; // refusal: payload too large
    case 'PT415': return 415; // refusal: unsupported media type
    case 'PT422': return 422; // refusal: validation (initialStatuses, body version, files)
    case 'PT429': return 429; // refusal: too many at once (a caller's open upload intents)
    case '23505': return 409; // unique_violation
    case '23514': return 422; // check_violation
    case '23502': return 422; // not_null_violation
    case '23503': return 422; // foreign_key_violation (409 when another table still refers to the row)
    case '23001': return 409; // restrict_violation: an ON DELETE RESTRICT reference still points here
    case '23P01': return 409; // exclusion_violation
    case '428C9': return 400; // generated_always: a value supplied for an identity column
    case '42501': return anonymous ? 401 : 403; // insufficient_privilege
    case '54000': return 413; // program_limit_exceeded (e.g. index row size)
    case QUERY_CANCELED: return 503; // a statement timeout
    case LOCK_NOT_AVAILABLE: return 503; // (lock timeout)
    case SERIALIZATION_FAILURE: return 503; // retry
    case DEADLOCK_DETECTED: return 503; // retry
  }
  switch (sqlstate.slice(0, 2)) {
    case '22': return 400; // data_exception: invalid text representation, datetime format, out of range, …
    case '54': return 413; // program_limit_exceeded class (statement too complex, stack depth)
    case '08': return 503; // connection_exception
    case '28': return 503; // invalid_authorization_specification: the gateway's own login refused (its password, pg_hba)
    case '53': return 503; // insufficient_resources
    case '57': return 503; // operator_intervention (admin shutdown, cannot connect now)
  }
  return 500; // anything else is a bug of ours: logged, never shown
}

/** What a client may read about a data_exception, by code; never PostgreSQL's own message. */
export function dataExceptionDetail(sqlstate: string): string {
  switch (sqlstate) {
    case '22P02': return 'A value is not valid for the type of its property.'; // invalid_text_representation
    case '22007': return 'A date or time value is not in a valid format.'; // invalid_datetime_format
    case '22008': return 'A date or time value is out of range.'; // datetime_field_overflow
    case '22003': return 'A number is out of range for its property.'; // numeric_value_out_of_range
    case '22001': return 'A value is too long for its property.'; // string_data_right_truncation
    case '22025': return 'A like pattern ends with an escape character.'; // invalid_escape_sequence
    case '2201B': return 'A pattern is not a valid regular expression.'; // invalid_regular_expression
    case '22P05': return 'A text value holds a character that cannot be stored (such as \\u0000).'; // untranslatable_character
    case '22021': return 'A text value holds a character that cannot be stored.'; // character_not_in_repertoire
    case '22012': return 'A computation divided by zero.'; // division_by_zero
  }
  return 'A value in the request is not valid.';
}
