// The client_name rule, shared by registration (RFC 7591) and metadata documents (D13).
import * as z from 'zod';

/** A client's name, registered or in its metadata document: shown on the consent page, so one short line. */
export const ClientName = z
  .string()
  .max(200, 'client_name must be at most 200 characters')
  .regex(/^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/u, 'client_name must be a single line without control characters');
