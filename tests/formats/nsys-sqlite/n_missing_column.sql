-- A kernel table without deviceId cannot be placed on a GPU: it is not read
-- (said once, for the table); the copy table still is.  No session start.
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, streamId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 7);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, copyKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (3000, 4000, 0, 7, 8);
