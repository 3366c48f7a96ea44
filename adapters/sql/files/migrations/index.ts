/** The file storage module's migrations, in order (versions never change once released). */
import type { Migration } from "../../Migration.js";
import { filesMigration0001 } from "./0001_files_tables.js";
import { filesMigration0002 } from "./0002_legal_hold.js";
import { filesMigration0003 } from "./0003_retention_and_background_work.js";
import { filesMigration0004 } from "./0004_multipart_uploads.js";
import { filesMigration0005 } from "./0005_open_upload_sessions.js";
import { filesMigration0006 } from "./0006_detected_content_type.js";
import { filesMigration0007 } from "./0007_changes_left_view.js";
import { filesMigration0008 } from "./0008_changes_recipient_index.js";
import { filesMigration0009 } from "./0009_node_search.js";
import { filesMigration0010 } from "./0010_changes_entered_view.js";
import { filesMigration0011 } from "./0011_visible_nodes_walk.js";
import { filesMigration0012 } from "./0012_search_index_without_pending_list.js";
import { filesMigration0013 } from "./0013_share_links_expire.js";
import { filesMigration0014 } from "./0014_share_links_expiry_required.js";
import { filesMigration0015 } from "./0015_state_machines.js";
import { filesMigration0016 } from "./0016_purged_node_stubs.js";
import { filesMigration0017 } from "./0017_audit_export_removal.js";
import { filesMigration0018 } from "./0018_root_name_holders.js";
import { filesMigration0019 } from "./0019_open_uploads_by_creator.js";
import { filesMigration0020 } from "./0020_root_holder_sees_node.js";
import { filesMigration0021 } from "./0021_root_holder_given_sight.js";
import { filesMigration0022 } from "./0022_root_holder_sees_created_node.js";

export const filesMigrations: ReadonlyArray<Migration> = [filesMigration0001, filesMigration0002, filesMigration0003, filesMigration0004, filesMigration0005, filesMigration0006, filesMigration0007, filesMigration0008, filesMigration0009, filesMigration0010, filesMigration0011, filesMigration0012, filesMigration0013, filesMigration0014, filesMigration0015, filesMigration0016, filesMigration0017, filesMigration0018, filesMigration0019, filesMigration0020, filesMigration0021, filesMigration0022];
