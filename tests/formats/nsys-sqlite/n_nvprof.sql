-- nvprof's own SQLite (.nvvp): StringTable, _id_ columns, a name column.
CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL);
INSERT INTO StringTable (value) VALUES ('gemm_kernel');
CREATE TABLE Version (version INTEGER NOT NULL);
INSERT INTO Version VALUES (11);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (_id_ INTEGER PRIMARY KEY AUTOINCREMENT, start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL, streamId INT NOT NULL, correlationId INT NOT NULL, name INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, name) VALUES (1000, 2000, 0, 7, 1, 1);
