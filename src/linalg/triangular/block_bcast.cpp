#include "linalg/triangular/block_bcast.hpp"

#include <span>
#include <utility>

#include "linalg/triangular/block_frames.hpp"

namespace commpress::linalg::detail {

template <>
MPI_Datatype mpi_type_of<double>() {
  return MPI_DOUBLE;
}
template <>
MPI_Datatype mpi_type_of<float>() {
  return MPI_FLOAT;
}

template <class T>
void BlockBcast<T>::start(T* data, int64_t count, int64_t status, int root, MPI_Comm comm,
                          const Wire* frames, std::vector<int64_t> blocks) {
  data_ = data;
  count_ = count;
  root_ = root;
  comm_ = comm;
  frames_ = frames != nullptr && frames->compressed() ? frames : nullptr;
  payload_posted_ = false;
  encode_status_ = {};
  blocks_ = std::move(blocks);
  offsets_.clear();
  MPI_Comm_rank(comm, &rank_);
  header_[0] = 0;
  header_[1] = status;
  if (rank_ == root_ && frames_ != nullptr) {
    if (blocks_.empty()) {
      auto len = frames_->encode(data, size_t(count), frame_);
      encode_status_ = len.status();
      frame_.resize(len.ok() ? *len : 0);
    } else {
      encode_status_ = encode_blocks(*frames_, data, blocks_, frame_, offsets_);
    }
    // A frame that could not be made travels as an empty one and fails every receiver.
    header_[0] = encode_status_.ok() ? int64_t(frame_.size()) : -1;
  }
  MPI_Ibcast(header_, 2, MPI_INT64_T, root, comm, &header_request_);
  if (frames_ == nullptr || rank_ == root_) post_payload();
}

template <class T>
void BlockBcast<T>::post_payload() {
  payload_posted_ = true;
  if (frames_ == nullptr) {
    bytes_ = rank_ == root_ ? 0 : count_ * int64_t(sizeof(T));
    MPI_Ibcast(data_, int(count_), mpi_type_of<T>(), root_, comm_, &payload_request_);
    return;
  }
  const int64_t size = std::max<int64_t>(0, header_[0]);
  if (rank_ != root_) frame_.resize(size_t(size));
  bytes_ = rank_ == root_ ? 0 : size;
  MPI_Ibcast(frame_.data(), int(size), MPI_BYTE, root_, comm_, &payload_request_);
}

template <class T>
bool BlockBcast<T>::test() {
  int done = 0;
  if (!payload_posted_) {
    MPI_Test(&header_request_, &done, MPI_STATUS_IGNORE);
    if (!done) return false;
    post_payload();
  }
  if (payload_request_ == MPI_REQUEST_NULL) return true;
  MPI_Test(&payload_request_, &done, MPI_STATUS_IGNORE);
  return done != 0;
}

template <class T>
Status BlockBcast<T>::wait() {
  MPI_Wait(&header_request_, MPI_STATUS_IGNORE);
  if (!payload_posted_) post_payload();
  MPI_Wait(&payload_request_, MPI_STATUS_IGNORE);
  if (frames_ != nullptr && rank_ != root_) {
    if (header_[0] < 0)
      return Status{ErrorCode::internal, "the broadcast's root could not encode its block"};
    if (blocks_.empty())
      COMMPRESS_RETURN_IF_ERROR(frames_->decode(frame_, data_, size_t(count_)));
    else
      COMMPRESS_RETURN_IF_ERROR(decode_blocks(*frames_, frame_, blocks_, data_, offsets_));
  }
  return encode_status_;
}

template class BlockBcast<float>;
template class BlockBcast<double>;

}  // namespace commpress::linalg::detail
